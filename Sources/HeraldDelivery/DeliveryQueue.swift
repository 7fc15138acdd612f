import Synchronization

/// Pushes delivered after a front door has answered its client, by tasks this dispatcher owns, so they finish (or reach their deadline) before the node
/// stops. At most `limit` pushes wait or run at once; beyond that the caller is refused and answers
/// its client in its own protocol's terms.
public final class DeliveryQueue: Sendable {
    private let pending: PendingLimit
    private let stream: AsyncStream<@Sendable () async -> Void>
    private let continuation: AsyncStream<@Sendable () async -> Void>.Continuation

    public init(limit: Int = 8192) {
        self.pending = PendingLimit(limit)
        (self.stream, self.continuation) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
    }

    public var limit: Int { self.pending.limit }

    /// Pushes accepted and not yet finished.
    public var pendingCount: Int { self.pending.count }

    /// Accepts `count` pushes whose delivery is `work`; `false` (nothing accepted) when that
    /// would pass the limit or the dispatcher has finished.
    public func submit(count: Int, _ work: @escaping @Sendable () async -> Void) -> Bool {
        guard self.pending.acquire(count) else { return false }
        let job: @Sendable () async -> Void = {
            await work()
            self.pending.release(count)
        }
        if case .terminated = self.continuation.yield(job) {
            self.pending.release(count)
            return false
        }
        return true
    }

    /// Runs accepted work until `finish()`, then waits for what is still running.
    public func run() async {
        await withDiscardingTaskGroup { group in
            for await job in self.stream {
                group.addTask { await job() }
            }
        }
    }

    /// Stops accepting work; `run()` returns when the accepted work is done.
    public func finish() {
        self.continuation.finish()
    }
}
