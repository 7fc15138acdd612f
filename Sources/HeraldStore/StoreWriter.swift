import NIOCore
import Dispatch
import NIOPosix

/// Serialises every write transaction of one LMDB environment on a thread of its own.
///
/// LMDB allows one write transaction at a time, owned by one thread, and a durable commit blocks in
/// fsync. Running the writer on a dedicated event loop keeps both facts away from Swift's small
/// cooperative pool: callers await, the pool keeps serving requests.
public actor StoreWriter {
    public let environment: LMDBEnvironment
    private let group: MultiThreadedEventLoopGroup
    private let loop: any EventLoop
    private var isClosed = false

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        self.loop.executor.asUnownedSerialExecutor()
    }

    public init(environment: LMDBEnvironment) {
        self.environment = environment
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.loop = self.group.next()
    }

    /// Runs `body` in a write transaction and commits it; see `LMDBEnvironment.withWriteTransaction`
    /// for the retry on a full map, which is why `body` must be repeatable.
    public func write<T: Sendable>(_ body: (borrowing LMDBWriteTransaction) throws -> T) throws -> T {
        guard !self.isClosed else { throw StoreError(.closed, "the store writer is closed") }
        return try self.environment.withWriteTransaction(body)
    }

    /// Refuses further writes, flushes to disk and closes the environment. Later calls fail with
    /// `store.closed`.
    public func close() async throws {
        guard !self.isClosed else { return }
        self.isClosed = true
        defer { self.environment.close() }
        try self.environment.sync()
    }

    deinit {
        // The thread lives as long as the actor: a call enqueued on a stopped loop would never
        // run, so a caller racing shutdown would hang instead of getting `store.closed`. The
        // callback form does not block, so it is safe from any thread, the loop's own included.
        self.group.shutdownGracefully(queue: .global()) { _ in }
    }
}
