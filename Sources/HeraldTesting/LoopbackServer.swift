public import Hummingbird
public import NIOCore
import Logging
import ServiceLifecycle

/// A Hummingbird server for test peers on 127.0.0.1 at a free port, stopped by graceful
/// shutdown. Cancelling a Hummingbird server instead traps when a connection is being accepted
/// at that moment: the accepted channel is dropped unread, and its NIOAsyncChannel writer was
/// never finished ("Deinited NIOAsyncWriter without calling finish()", swift-nio#2813). Graceful
/// shutdown closes the listener and still serves whatever it had accepted, then closes idle
/// connections.
public struct LoopbackServer: Sendable {
    /// The port it listens on.
    public let port: Int
    private let group: ServiceGroup
    private let serving: Task<Void, any Error>

    /// Starts serving `router` and returns once it listens. `eventLoopGroup` is the shared
    /// threads unless given.
    public static func start(
        _ router: Router<BasicRequestContext>,
        eventLoopGroup: (any EventLoopGroup)? = nil
    ) async throws -> LoopbackServer {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            eventLoopGroupProvider: eventLoopGroup.map { .shared($0) } ?? .singleton
        )
        var configuration = ServiceGroupConfiguration(services: [application], gracefulShutdownSignals: [], logger: Logger(label: "herald.test-peer"))
        // A request that never ends would hold a test up; by then the listener is closed, so the
        // cancellation that follows finds no connection being accepted.
        configuration.maximumGracefulShutdownDuration = .seconds(10)
        let group = ServiceGroup(configuration: configuration)
        let serving = Task {
            defer { continuation.finish() }
            try await group.run()
        }
        var port: Int?
        for await bound in ports {
            port = bound
        }
        guard let port, port > 0 else {
            await group.triggerGracefulShutdown()
            try await serving.value
            throw LoopbackServerError()
        }
        return LoopbackServer(port: port, group: group, serving: serving)
    }

    /// Stops listening, lets requests in progress end and waits until the server has ended.
    public func stop() async {
        await self.group.triggerGracefulShutdown()
        _ = await self.serving.result
    }
}

/// The server ended before it listened.
public struct LoopbackServerError: Error, CustomStringConvertible {
    public var description: String { "the loopback test server stopped before it listened" }
}
