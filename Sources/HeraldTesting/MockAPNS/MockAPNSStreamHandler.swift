import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOHTTP2

/// One request stream of the mock: gathers the request, has it validated, writes the answer.
final class MockAPNSStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let mock: MockAPNS
    private let connection: MockAPNSConnectionState
    private var headers: HPACKHeaders?
    private var body: [UInt8] = []
    private var answered = false
    private var streamID: Int?

    init(mock: MockAPNS, connection: MockAPNSConnectionState) {
        self.mock = mock
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .headers(let frame):
            if self.headers == nil {
                self.headers = frame.headers
                self.streamID = (try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)).map { Int($0) }
                if let streamID = self.streamID {
                    self.connection.state.withLockedValue { $0.highestStreamID = max($0.highestStreamID, streamID) }
                }
            }
            if frame.endStream { self.answer(context: context) }
        case .data(let frame):
            if case .byteBuffer(let buffer) = frame.data { self.body += buffer.readableBytesView }
            if frame.endStream { self.answer(context: context) }
        default:
            break
        }
    }

    private func answer(context: ChannelHandlerContext) {
        guard !self.answered, let headers = self.headers else { return }
        self.answered = true
        let refused = self.connection.state.withLockedValue { state in
            guard let last = state.goAwayLastStreamID, let streamID = self.streamID else { return false }
            return streamID > last
        }
        if refused {
            context.writeAndFlush(Self.wrapOutboundOut(.rstStream(.refusedStream)), promise: nil)
            return
        }
        let answer = self.mock.validate(headers: headers, body: self.body, connection: self.connection)
        if answer.authenticatedNow {
            context.channel.parent?.writeAndFlush(MockAPNS.settings(maxConcurrentStreams: self.mock.streamsAfterAuthentication), promise: nil)
        }
        let latency = self.mock.latency
        if latency > .zero {
            let nanoseconds = latency.components.seconds * 1_000_000_000 + latency.components.attoseconds / 1_000_000_000
            context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(nanoseconds)) {
                self.write(answer, context: context)
            }
        } else {
            self.write(answer, context: context)
        }
    }

    private func write(_ answer: MockAPNS.Answer, context: ChannelHandlerContext) {
        // Broadcast answers carry apns-request-id (in `answer.headers`) instead of apns-id.
        var headers = HPACKHeaders([(":status", String(answer.status))] + (answer.headers ?? [("apns-id", answer.apnsID)]))
        if let retryAfter = answer.retryAfter { headers.add(name: "retry-after", value: String(retryAfter)) }
        guard let reason = answer.reason else {
            if let body = answer.body {
                context.write(Self.wrapOutboundOut(.headers(.init(headers: headers))), promise: nil)
                context.writeAndFlush(Self.wrapOutboundOut(.data(.init(data: .byteBuffer(ByteBuffer(bytes: body)), endStream: true))), promise: nil)
            } else {
                context.writeAndFlush(Self.wrapOutboundOut(.headers(.init(headers: headers, endStream: true))), promise: nil)
            }
            return
        }
        headers.add(name: "content-type", value: "application/json")
        var json = #"{"reason":"\#(reason)""#
        if let timestamp = answer.timestamp { json += #","timestamp":\#(timestamp)"# }
        json += "}"
        context.write(Self.wrapOutboundOut(.headers(.init(headers: headers))), promise: nil)
        context.writeAndFlush(Self.wrapOutboundOut(.data(.init(data: .byteBuffer(ByteBuffer(string: json)), endStream: true))), promise: nil)
    }
}

@available(*, unavailable)
extension MockAPNSStreamHandler: Sendable {}
