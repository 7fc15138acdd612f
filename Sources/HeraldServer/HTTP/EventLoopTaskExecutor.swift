import NIOCore

/// Runs the jobs of tasks that prefer it on one event loop, as a task executor.
///
/// `herald` makes NIO's event loops the global executor, and NIO runs those jobs with the loop as
/// the current *serial* executor. Every call into a nonisolated async function then has to leave
/// that executor for the generic one: a job enqueued on a loop and run again, about 75 times for
/// one gorush push. A task executor keeps the generic executor current, so those calls continue
/// in place, while the connection's work stays on its own loop (its channel's, and the provider
/// connection that loop prefers).
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        self.eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
