import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

@testable import HeraldDelivery

/// The client pipeline `HTTP2Connection` builds and a NIOHTTP2 server in frame mode, each on an
/// `EmbeddedChannel`, joined in memory as swift-nio-http2's own tests join theirs. Everything runs
/// on the test's thread: requests go straight to the streams handler with their permits taken as
/// `HTTP2Connection.send` takes them.
final class EmbeddedHTTP2Peers {
    /// A request's answer as it stands: `nil` while the stream is open.
    final class Answer {
        var result: Result<HTTP2Response, any Error>?
    }

    /// What the server read on one stream.
    struct StreamFrames {
        var headers: HPACKHeaders?
        var body: [UInt8] = []
        var ended = false
        var reset: HTTP2ErrorCode?
    }

    final class Server {
        let channel = EmbeddedChannel()
        private let recorder = FrameRecorder()

        init() throws {
            try self.channel.pipeline.syncOperations.addHandler(NIOHTTP2Handler(mode: .server))
            try self.channel.pipeline.syncOperations.addHandler(self.recorder)
        }

        /// Every frame NIOHTTP2 passed up, in order.
        var received: [HTTP2Frame] { self.recorder.frames }
        /// Streams NIOHTTP2 closed, with the reset code when one ended them.
        var closedStreams: [HTTP2StreamID: HTTP2ErrorCode?] { self.recorder.closed }

        func frames(on id: HTTP2StreamID) -> StreamFrames {
            var frames = StreamFrames()
            for frame in self.received where frame.streamID == id {
                switch frame.payload {
                case .headers(let headers):
                    frames.headers = headers.headers
                    frames.ended = frames.ended || headers.endStream
                case .data(let data):
                    if case .byteBuffer(let buffer) = data.data { frames.body += buffer.readableBytesView }
                    frames.ended = frames.ended || data.endStream
                case .rstStream(let code):
                    frames.reset = code
                default:
                    break
                }
            }
            return frames
        }

        func write(_ frame: HTTP2Frame) {
            // Not `writeOutbound`: a DATA frame waiting for the client's window would block it.
            self.channel.writeAndFlush(frame, promise: nil)
        }
    }

    private final class FrameRecorder: ChannelInboundHandler {
        typealias InboundIn = HTTP2Frame
        var frames: [HTTP2Frame] = []
        var closed: [HTTP2StreamID: HTTP2ErrorCode?] = [:]

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            self.frames.append(Self.unwrapInboundIn(data))
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let closed = event as? StreamClosedEvent { self.closed[closed.streamID] = closed.reason }
        }
    }

    /// No stream permit was free.
    struct NoFreeStream: Error {}

    static let requestHeaders = HTTP2Fields([
        (":method", "POST"), (":scheme", "https"), (":authority", "localhost"), (":path", "/3/device/a1"),
    ])

    let client = EmbeddedChannel()
    let server: Server
    let state: HTTP2ConnectionDriver
    let streams: any HTTP2StreamSending

    /// Connects both sides and exchanges the prefaces.
    init(codec: HTTP2Codec = .nio) throws {
        self.state = HTTP2ConnectionDriver(eventLoop: self.client.embeddedEventLoop)
        self.streams = try codec.addHandlers(to: self.client, state: self.state)
        let client = self.client
        self.state.channelCreated { client.close(promise: nil) }
        self.server = try Server()
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: 443)
        try self.client.connect(to: address).wait()
        try self.server.channel.connect(to: address).wait()
        self.interact()
        var preface: Result<Void, any Error>?
        self.state.preface.futureResult.assumeIsolated().whenComplete { preface = $0 }
        try #require(preface != nil, "the server's SETTINGS arrived")
    }

    /// Sends a request as `HTTP2Connection.send` does once it holds a permit, giving the permit
    /// back when the answer ends; throws when no permit is free.
    func request(body: [UInt8] = [], timeout: TimeAmount? = nil) throws -> Answer {
        guard try self.state.acquireWithoutWaiting() else { throw NoFreeStream() }
        let promise = self.client.eventLoop.makePromise(of: HTTP2Response.self)
        let answer = Answer()
        let state = self.state
        promise.futureResult.assumeIsolated().whenComplete { result in
            answer.result = result
            state.release()
        }
        self.streams.send(HTTP2Connection.Request(headers: Self.requestHeaders, body: body, deadline: nil), timeout: timeout) { promise.completeWith($0.mapError { $0 }) }
        return answer
    }

    /// The server answers stream `id`.
    func answer(_ id: HTTP2StreamID, status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        var head: HPACKHeaders = [":status": "\(status)"]
        for (name, value) in headers { head.add(name: name, value: value) }
        self.server.write(HTTP2Frame(streamID: id, payload: .headers(.init(headers: head, endStream: body.isEmpty))))
        if !body.isEmpty {
            self.server.write(HTTP2Frame(streamID: id, payload: .data(.init(data: .byteBuffer(ByteBuffer(bytes: body)), endStream: true))))
        }
    }

    /// Moves bytes both ways, running both loops, until neither side has anything to say.
    func interact() {
        var moved: Bool
        repeat {
            moved = false
            self.client.embeddedEventLoop.run()
            self.server.channel.embeddedEventLoop.run()
            if let bytes = Self.readBytes(self.client) {
                moved = true
                Self.deliver(bytes, to: self.server.channel)
            }
            if let bytes = Self.readBytes(self.server.channel) {
                moved = true
                Self.deliver(bytes, to: self.client)
            }
        } while moved
    }

    func finish() {
        _ = try? self.client.finish(acceptAlreadyClosed: true)
        _ = try? self.server.channel.finish(acceptAlreadyClosed: true)
    }

    private static func readBytes(_ channel: EmbeddedChannel) -> ByteBuffer? {
        guard channel.isActive, let data = try? channel.readOutbound(as: IOData.self) else { return nil }
        switch data {
        case .byteBuffer(let buffer): return buffer
        case .fileRegion: return nil
        }
    }

    private static func deliver(_ bytes: ByteBuffer, to channel: EmbeddedChannel) {
        guard channel.isActive else { return }
        do {
            try channel.writeInbound(bytes)
        } catch {
            Issue.record("\(error)")
        }
    }
}
