public import NIOCore

/// Runs the jobs of tasks that prefer it on one event loop, as a task executor.
///
/// `herald` makes NIO's event loops the global executor, and NIO runs those jobs with the loop as
/// the current *serial* executor. Every call into a nonisolated async function then has to leave
/// that executor for the generic one: a job enqueued on a loop and run again, about 77 times for
/// one 1-token push. A task executor keeps the generic executor current, so those calls continue
/// in place, while the connection's work stays on its own loop (its channel's, and the provider
/// connection that loop prefers).
///
/// The loop must outlive the tasks: a job given to a loop that has shut down is dropped and its
/// task never resumes. Herald's listeners run on NIO's singleton group, which never shuts down.
public final class EventLoopTaskExecutor: TaskExecutor {
    public let eventLoop: any EventLoop

    public init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        self.eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
