import NIOCore

/// Sits first on the mock's listening channel and hands every accepted connection to the mock,
/// which Hummingbird does not expose: the mock counts them, drops them on request and closes
/// them at shutdown, so a client that keeps its connection open cannot hold the mock up.
final class MockFCMConnectionTracker: ChannelInboundHandler {
    typealias InboundIn = any Channel

    private let opened: @Sendable (any Channel) -> Void

    init(opened: @escaping @Sendable (any Channel) -> Void) {
        self.opened = opened
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.opened(Self.unwrapInboundIn(data))
        context.fireChannelRead(data)
    }
}

@available(*, unavailable)
extension MockFCMConnectionTracker: Sendable {}
