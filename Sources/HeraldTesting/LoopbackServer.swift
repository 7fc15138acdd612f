public import Hummingbird

/// Serves `router` on 127.0.0.1 at a free port, for test peers; cancel the task to stop it.
public func serveOnLoopback(_ router: Router<BasicRequestContext>) async -> (task: Task<Void, any Error>, port: Int) {
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let application = Application(
        router: router,
        configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }
    )
    let task = Task { try await application.runService(gracefulShutdownSignals: []) }
    var port = 0
    for await bound in ports {
        port = bound
        break
    }
    return (task, port)
}
