import NIOCore

/// Remembers the first error seen while connecting (a TLS handshake failure, say): ALPN
/// negotiation then fails with a bare "output closed", and the operator needs the cause.
final class HTTP2ConnectErrorRecorder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Any

    private let state: HTTP2ConnectionDriver

    init(state: HTTP2ConnectionDriver) {
        self.state = state
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.state.errorCaught(error)
        context.fireErrorCaught(error)
    }
}

@available(*, unavailable)
extension HTTP2ConnectErrorRecorder: Sendable {}
