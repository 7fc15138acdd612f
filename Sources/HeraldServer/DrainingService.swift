import ServiceLifecycle

/// Runs a worker that drains a queue (the feedback webhook, gorush's async dispatcher): on
/// graceful shutdown it stops taking work and returns once the queued work is done. A second
/// signal or the shutdown timeout cancels it.
struct DrainingService: Service {
    let work: @Sendable () async -> Void
    let finish: @Sendable () -> Void

    func run() async throws {
        await withGracefulShutdownHandler {
            await self.work()
        } onGracefulShutdown: {
            self.finish()
        }
    }
}
