import NIOCore
import NIOHTTP1

/// The mock FCM's HTTP/1.1 fallback, for a client that does not negotiate `h2`: one request at
/// a time on the connection (NIO's pipelining handler holds the next until this one's end).
final class MockFCMHTTP1Handler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let mock: MockFCM
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var tooLarge = false
    /// An answer said `Connection: close`: what the client pipelined behind it is not processed
    /// (RFC 9112 §9.6).
    private var closing = false

    init(mock: MockFCM) {
        self.mock = mock
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.closing else { return }
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            self.body = []
            self.tooLarge = false
        case .body(let buffer):
            guard !self.tooLarge else { return }
            if self.body.count + buffer.readableBytes > MockFCM.maximumBodySize {
                self.tooLarge = true
                self.body = []
            } else {
                self.body += buffer.readableBytesView
            }
        case .end:
            guard let head = self.head else { return }
            self.head = nil
            self.respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        guard !self.tooLarge else {
            self.write(.contentTooLarge, keepAlive: false, version: head.version, context: context)
            return
        }
        let request = MockFCM.Request(
            method: head.method.rawValue,
            path: head.uri,
            authorization: head.headers.first(name: "authorization"),
            contentType: head.headers.first(name: "content-type"),
            body: self.body,
            overHTTP2: false
        )
        let (answer, delayed) = self.mock.answer(request)
        let keepAlive = head.isKeepAlive
        if delayed, let latency = self.mock.latencyAmount {
            context.eventLoop.assumeIsolated().scheduleTask(in: latency) {
                self.write(answer, keepAlive: keepAlive, version: head.version, context: context)
            }
        } else {
            self.write(answer, keepAlive: keepAlive, version: head.version, context: context)
        }
    }

    private func write(_ answer: MockFCMAnswer, keepAlive: Bool, version: HTTPVersion, context: ChannelHandlerContext) {
        var headers = HTTPHeaders(answer.headerFields)
        headers.add(name: "content-length", value: String(answer.body.count))
        if !keepAlive {
            headers.add(name: "connection", value: "close")
            // Set before the end is written: NIO's pipelining handler hands over the next
            // request from inside that write.
            self.closing = true
        }
        let head = HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: answer.status), headers: headers)
        context.write(Self.wrapOutboundOut(.head(head)), promise: nil)
        if !answer.body.isEmpty {
            context.write(Self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: answer.body)))), promise: nil)
        }
        let written = context.writeAndFlush(Self.wrapOutboundOut(.end(nil)))
        if !keepAlive {
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}

@available(*, unavailable)
extension MockFCMHTTP1Handler: Sendable {}
