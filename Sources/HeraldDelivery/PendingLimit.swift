import Synchronization

/// A count of pushes waiting or running, refused beyond `limit`: what bounds the memory a front
/// door's accepted work may hold.
public final class PendingLimit: Sendable {
    public let limit: Int
    private let pending = Atomic<Int>(0)

    public init(_ limit: Int) {
        self.limit = max(limit, 1)
    }

    public var count: Int { self.pending.load(ordering: .relaxed) }

    /// Takes `count` places; `false` (nothing taken) when that would pass the limit.
    public func acquire(_ count: Int) -> Bool {
        var current = self.pending.load(ordering: .relaxed)
        while true {
            guard current + count <= self.limit else { return false }
            let (done, actual) = self.pending.compareExchange(expected: current, desired: current + count, ordering: .acquiringAndReleasing)
            if done { return true }
            current = actual
        }
    }

    /// Takes `count` places past the limit if need be: for work already acknowledged (resumed
    /// after a restart), which may not be refused.
    public func take(_ count: Int) {
        self.pending.add(count, ordering: .relaxed)
    }

    public func release(_ count: Int) {
        self.pending.subtract(count, ordering: .relaxed)
    }
}
