import DequeModule
import NIOCore

/// The deadlines of one connection's open streams, for one timer per connection instead of a
/// scheduled task per stream (its heap insert and cancel cost 5 % of a push). A value: the codec
/// owns the timer and sets it where `add` and `timerFired` say.
///
/// Deadlines are kept in the order the streams were opened; answers mostly come in that order,
/// so dropping answered streams from the front keeps about the streams in flight.
struct StreamDeadlines<ID: Hashable> {
    private var entries = Deque<(id: ID, deadline: NIODeadline)>()
    /// What the owner's timer is set for, while it has not fired.
    private(set) var timer: NIODeadline?

    /// Adds a stream's deadline; returns the deadline to set the timer for when it is earlier
    /// than the one set (or none is).
    mutating func add(_ id: ID, deadline: NIODeadline) -> NIODeadline? {
        self.entries.append((id, deadline))
        guard self.timer.map({ deadline < $0 }) ?? true else { return nil }
        self.timer = deadline
        return deadline
    }

    /// Drops the front's streams that `isOpen` says are answered.
    mutating func dropAnswered(isOpen: (ID) -> Bool) {
        while let first = self.entries.first, !isOpen(first.id) {
            self.entries.removeFirst()
        }
    }

    /// The timer fired at `now`: returns the open streams whose deadline passed, and the deadline
    /// to set the timer for next (the earliest left).
    mutating func timerFired(now: NIODeadline, isOpen: (ID) -> Bool) -> (expired: [ID], next: NIODeadline?) {
        var kept = Deque<(id: ID, deadline: NIODeadline)>()
        var expired: [ID] = []
        var earliest: NIODeadline?
        for entry in self.entries where isOpen(entry.id) {
            if entry.deadline <= now {
                expired.append(entry.id)
            } else {
                kept.append(entry)
                earliest = min(earliest ?? entry.deadline, entry.deadline)
            }
        }
        self.entries = kept
        self.timer = earliest
        return (expired, earliest)
    }

    /// The connection ended: nothing is left to time out.
    mutating func removeAll() {
        self.entries.removeAll()
        self.timer = nil
    }
}
