import NIOCore
import NIOHTTP2

/// Watches the connection-level frames NIOHTTP2 passes down the pipeline (SETTINGS, GOAWAY) and
/// the connection's end, and reports them to the connection's shared state.
final class HTTP2ConnectionObserver: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame

    private let state: HTTP2ConnectionDriver

    init(state: HTTP2ConnectionDriver) {
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = Self.unwrapInboundIn(data)
        switch frame.payload {
        case .settings(.settings(let settings)):
            // Each SETTINGS frame carries only what changed; no stream limit here keeps the old one.
            let limit = settings.last { $0.parameter == .maxConcurrentStreams }?.value
            self.state.settingsReceived(maxConcurrentStreams: limit)
        case .ping(let data, ack: true):
            self.state.pingAcknowledged(data.integer)
        case .goAway(let lastStreamID, let errorCode, let opaqueData):
            let debug = opaqueData.map { String(buffer: $0) }
            self.state.goAwayReceived(lastStreamID: lastStreamID, errorCode: errorCode, debugData: debug)
        default:
            break
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The inline multiplexer also reports errors of single streams here (a late frame for a
        // stream already reset); those must not take down the other streams.
        if error is NIOHTTP2Errors.NoSuchStream || error is NIOHTTP2Errors.StreamClosed || error is NIOHTTP2Errors.StreamError {
            return
        }
        // A stream that was waiting for a free slot when the peer's GOAWAY arrived: its request
        // fails and is retried elsewhere, while the streams the GOAWAY let finish go on.
        if error is NIOHTTP2Errors.CreatedStreamAfterGoaway { return }
        // NIOHTTP2 reports connection errors but never closes the connection itself.
        self.state.closed(because: "\(error)")
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.state.closed(because: "connection closed")
        context.fireChannelInactive()
    }
}

@available(*, unavailable)
extension HTTP2ConnectionObserver: Sendable {}
