public import HeraldCore
public import ServiceLifecycle

/// Runs a worker that drains a queue (the feedback webhook, a front door's dispatcher): on
/// graceful shutdown it stops taking work and returns once the queued work is done. A second
/// signal or the shutdown timeout cancels it.
public struct DrainingService: Service, DescribedByName {
    let work: @Sendable () async -> Void
    let finish: @Sendable () -> Void

    public init(work: @escaping @Sendable () async -> Void, finish: @escaping @Sendable () -> Void) {
        self.work = work
        self.finish = finish
    }

    public func run() async throws {
        await withGracefulShutdownHandler {
            await self.work()
        } onGracefulShutdown: {
            self.finish()
        }
    }
}
