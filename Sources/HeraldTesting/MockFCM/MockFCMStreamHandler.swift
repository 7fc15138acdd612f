import NIOCore
import NIOHPACK
import NIOHTTP2

/// One HTTP/2 request stream of the mock FCM: gathers the request, has the mock answer it,
/// writes the answer. A stream channel per request, as the mock APNs runs them; a framework's
/// request task and context a request cost the mock more CPU than the client it tests.
final class MockFCMStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let mock: MockFCM
    private var headers: HPACKHeaders?
    private var body: [UInt8] = []
    private var tooLarge = false
    private var answered = false

    init(mock: MockFCM) {
        self.mock = mock
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .headers(let frame):
            if self.headers == nil { self.headers = frame.headers }
            if frame.endStream { self.respond(context: context) }
        case .data(let frame):
            if case .byteBuffer(let buffer) = frame.data, !self.tooLarge {
                if self.body.count + buffer.readableBytes > MockFCM.maximumBodySize {
                    self.tooLarge = true
                    self.body = []
                } else {
                    self.body += buffer.readableBytesView
                }
            }
            if frame.endStream { self.respond(context: context) }
        default:
            break
        }
    }

    private func respond(context: ChannelHandlerContext) {
        guard !self.answered, let headers = self.headers else { return }
        self.answered = true
        guard !self.tooLarge else {
            self.write(.contentTooLarge, context: context)
            return
        }
        let request = MockFCM.Request(
            method: headers.first(name: ":method"),
            path: headers.first(name: ":path"),
            authorization: headers.first(name: "authorization"),
            contentType: headers.first(name: "content-type"),
            body: self.body,
            overHTTP2: true
        )
        let (answer, delayed) = self.mock.answer(request)
        if delayed, let latency = self.mock.latencyAmount {
            context.eventLoop.assumeIsolated().scheduleTask(in: latency) { self.write(answer, context: context) }
        } else {
            self.write(answer, context: context)
        }
    }

    private func write(_ answer: MockFCMAnswer, context: ChannelHandlerContext) {
        let headers = HPACKHeaders([(":status", String(answer.status))] + answer.headerFields)
        guard !answer.body.isEmpty else {
            context.writeAndFlush(Self.wrapOutboundOut(.headers(.init(headers: headers, endStream: true))), promise: nil)
            return
        }
        context.write(Self.wrapOutboundOut(.headers(.init(headers: headers))), promise: nil)
        context.writeAndFlush(Self.wrapOutboundOut(.data(.init(data: .byteBuffer(ByteBuffer(bytes: answer.body)), endStream: true))), promise: nil)
    }
}

@available(*, unavailable)
extension MockFCMStreamHandler: Sendable {}
