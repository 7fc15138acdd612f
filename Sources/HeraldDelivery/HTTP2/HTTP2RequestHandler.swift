import NIOCore
import NIOHPACK
import NIOHTTP2

/// Sends one request on its own HTTP/2 stream and completes `promise` with the whole response.
/// A plain handler and a promise cost far less per request than an async channel wrapper, and a
/// gateway sends one stream per notification.
final class HTTP2RequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let headers: HPACKHeaders
    private let body: ByteBuffer
    private let promise: EventLoopPromise<HTTP2Response>
    private var requestSent = false
    private var status: Int?
    private var responseHeaders = HPACKHeaders()
    private var collected: [UInt8] = []

    init(headers: HPACKHeaders, body: ByteBuffer, promise: EventLoopPromise<HTTP2Response>) {
        self.headers = headers
        self.body = body
        self.promise = promise
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { self.sendRequest(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.sendRequest(context: context)
        context.fireChannelActive()
    }

    private func sendRequest(context: ChannelHandlerContext) {
        guard !self.requestSent else { return }
        self.requestSent = true
        context.write(self.wrapOutboundOut(.headers(.init(headers: self.headers))), promise: nil)
        context.writeAndFlush(self.wrapOutboundOut(.data(.init(data: .byteBuffer(self.body), endStream: true))), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let endStream: Bool
        switch self.unwrapInboundIn(data) {
        case .headers(let frame):
            if self.status == nil {
                self.status = Int(frame.headers.first(name: ":status") ?? "") ?? 0
                self.responseHeaders = frame.headers
            }
            endStream = frame.endStream
        case .data(let frame):
            if case .byteBuffer(let buffer) = frame.data { self.collected += buffer.readableBytesView }
            endStream = frame.endStream
        default:
            return
        }
        if endStream, let status = self.status {
            // Not closed here: the stream closes by itself once both ends are done. Closing it
            // while our own END_STREAM may still be queued would send RST_STREAM(CANCEL), and a
            // peer counting resets answers a stream of them with GOAWAY(ENHANCE_YOUR_CALM).
            self.promise.succeed(HTTP2Response(status: status, headers: self.responseHeaders, body: self.collected))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.promise.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // Closed before a complete answer: a deadline, a reset, or the connection went away.
        // (A promise already succeeded ignores this.)
        self.promise.fail(HTTP2RequestHandler.StreamClosed())
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.promise.fail(HTTP2RequestHandler.StreamClosed())
    }

    struct StreamClosed: Error {}
}

@available(*, unavailable)
extension HTTP2RequestHandler: Sendable {}
