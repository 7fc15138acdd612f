import DequeModule
import NIOCore

/// The stream permits of one connection: how many streams the peer allows at once, how many are
/// open, and who waits for one, first come first served.
///
/// NIO queues streams beyond the peer's `SETTINGS_MAX_CONCURRENT_STREAMS` without a bound; Herald
/// keeps its own count so waiting work stays visible (and boundable) in the delivery pool. The
/// limit follows every SETTINGS frame; lowering it lets open streams finish.
///
/// A value: waiters are ids with deadlines, and their continuations and the connection's one
/// deadline timer belong to the owner. The timer is only ever moved earlier; when it fires it
/// fails the waiters whose deadline passed and is set again for the earliest left, so one that
/// fires after its waiter was admitted costs a scan of the queue, not a timer per waiter.
struct StreamPermits {
    struct WaiterID: Hashable, Sendable, CustomStringConvertible {
        var rawValue: UInt64
        var description: String { "waiter \(self.rawValue)" }
    }

    private struct Waiter {
        var id: WaiterID
        var deadline: NIODeadline?
    }

    enum Request: Equatable {
        /// A permit was free and is now taken.
        case granted
        /// None is free, or others wait already: queue with `enqueue`.
        case mustWait
        case refused(HTTP2ConnectionError)
    }

    enum Queueing: Equatable {
        /// A permit freed up in the meantime and is now taken.
        case granted
        case refused(HTTP2ConnectionError)
        /// Waiting; the owner sets its timer for `scheduleTimer` when there is one.
        case queued(scheduleTimer: NIODeadline?)
    }

    private(set) var limit: Int
    private(set) var inUse = 0
    private var waiters = Deque<Waiter>()
    /// Set once: every waiter then and every later request fails with it.
    private(set) var failure: HTTP2ConnectionError?
    /// The deadline the owner's timer is set for, while it has not fired.
    private var timer: NIODeadline?

    init(limit: Int) {
        self.limit = max(limit, 0)
    }

    /// Requests waiting for a permit.
    var waiting: Int { self.waiters.count }

    /// Takes a free permit unless others are waiting for one.
    mutating func request() -> Request {
        if let failure = self.failure { return .refused(failure) }
        guard self.inUse < self.limit, self.waiters.isEmpty else { return .mustWait }
        self.inUse += 1
        return .granted
    }

    /// Queues a request that found no free permit; it may have freed up since.
    mutating func enqueue(_ id: WaiterID, deadline: NIODeadline?) -> Queueing {
        switch self.request() {
        case .granted: return .granted
        case .refused(let failure): return .refused(failure)
        case .mustWait: break
        }
        self.waiters.append(Waiter(id: id, deadline: deadline))
        guard let deadline, self.timer.map({ deadline < $0 }) ?? true else { return .queued(scheduleTimer: nil) }
        self.timer = deadline
        return .queued(scheduleTimer: deadline)
    }

    /// A stream ended; returns the waiters that take its permit (or more, after a raised limit).
    mutating func release() -> [WaiterID] {
        self.inUse -= 1
        return self.admit()
    }

    /// Returns the waiters a raised limit admits. A lowered one takes no open stream back.
    mutating func setLimit(_ limit: Int) -> [WaiterID] {
        self.limit = max(limit, 0)
        return self.admit()
    }

    /// Refuses every later request with `error` (the first failure stays) and returns the waiters
    /// to fail with it.
    mutating func fail(_ error: HTTP2ConnectionError) -> [WaiterID] {
        if self.failure == nil { self.failure = error }
        defer { self.waiters.removeAll() }
        return self.waiters.map(\.id)
    }

    /// Takes a waiter whose task was cancelled out of the queue; `false` when it is no longer
    /// there (admitted or failed already).
    mutating func cancel(_ id: WaiterID) -> Bool {
        guard let index = self.waiters.firstIndex(where: { $0.id == id }) else { return false }
        self.waiters.remove(at: index)
        return true
    }

    /// The owner's timer set for `deadline` fired at `now`: returns the waiters whose deadline
    /// passed, and the deadline to set the timer for next.
    mutating func timerFired(deadline: NIODeadline, now: NIODeadline) -> (expired: [WaiterID], scheduleTimer: NIODeadline?) {
        if self.timer == deadline { self.timer = nil }
        var expired: [WaiterID] = []
        var earliest: NIODeadline?
        if self.waiters.contains(where: { $0.deadline.map { $0 <= now } ?? false }) {
            var kept = Deque<Waiter>()
            kept.reserveCapacity(self.waiters.count)
            for waiter in self.waiters {
                if let deadline = waiter.deadline, deadline <= now {
                    expired.append(waiter.id)
                } else {
                    kept.append(waiter)
                }
            }
            self.waiters = kept
        }
        for case let deadline? in self.waiters.lazy.map(\.deadline) where earliest.map({ deadline < $0 }) ?? true {
            earliest = deadline
        }
        guard let earliest, self.timer.map({ earliest < $0 }) ?? true else { return (expired, nil) }
        self.timer = earliest
        return (expired, earliest)
    }

    private mutating func admit() -> [WaiterID] {
        var admitted: [WaiterID] = []
        while self.failure == nil, self.inUse < self.limit, let waiter = self.waiters.popFirst() {
            self.inUse += 1
            admitted.append(waiter.id)
        }
        return admitted
    }
}
