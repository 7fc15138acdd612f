import NIOPosix

/// Runs the jobs of tasks that prefer it on NIO's thread pool for blocking work, one thread per
/// core: a Status message costs about half a millisecond of elliptic-curve work (the envelope's
/// ECIES, two signature recoveries, the answer's ECDH and signature), which on an event loop
/// would hold every connection of that loop, and every push it is delivering, behind it.
///
/// It is NIO's singleton pool, which is never shut down: a stopped pool would run the job at once
/// on the thread that enqueued it.
final class ThreadPoolExecutor: TaskExecutor {
    private let pool = NIOThreadPool.singleton

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = self.asUnownedTaskExecutor()
        self.pool.submit { _ in job.runSynchronously(on: executor) }
    }
}
