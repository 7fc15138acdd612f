import HeraldStore
import HeraldCore
import Synchronization

/// The log entries etcd's watch has streamed to this node and its view has not applied yet, so
/// the follower reads them from memory instead of ranging over the whole log prefix.
///
/// The entries cover one unbroken stretch of revisions, `base..<next`: every log entry in it is
/// here or was already read past. A reader asking for anything before `base` gets `nil` and
/// reads etcd instead. At most `capacity` entries wait: the watch is held back beyond that.
final class WatchedLogEntries: Sendable {
    private struct State {
        var base: Int64 = .max
        var next: Int64 = .max
        /// Entries in revision order; those before `start` were read past and are dropped in
        /// bulk.
        var entries: [LogEntry] = []
        var start = 0
        var delivered: UInt64 = 0
        var dropped: UInt64 = 0
    }

    let capacity: Int
    private let state = Mutex(State())
    /// The revision of the newest entry delivered: what `waitForHead` waits on.
    let newest = PositionSignal(position: 0)
    /// How many entries were dropped after being read past, for the watch waiting for room.
    private let drained = PositionSignal(position: 0)

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// Starts covering from `revision`, forgetting what was held: the watch (re)starts there.
    func restart(at revision: Int64) {
        self.state.withLock { state in
            state.dropped += UInt64(state.entries.count - state.start)
            state.entries = []
            state.start = 0
            state.base = revision
            state.next = revision
        }
        self.drained.advance(to: self.state.withLock { $0.dropped })
    }

    /// Whether a delivery waits for the reader to make room.
    var isHoldingBackTheWatch: Bool { self.drained.waiting > 0 }

    /// Where the watch must resume for the stretch to stay unbroken.
    var resumeRevision: Int64 { self.state.withLock { $0.next } }

    /// Adds what one watch message carried: `entries` (possibly none) and the news that nothing
    /// else up to `revision` exists. Waits while the reader is `capacity` entries behind.
    func deliver(_ entries: [LogEntry], through revision: Int64) async throws {
        let (delivered, dropped) = self.state.withLock { ($0.delivered, $0.dropped) }
        if delivered - dropped >= UInt64(self.capacity) {
            _ = try await self.drained.wait(beyond: delivered - UInt64(self.capacity))
        }
        self.state.withLock { state in
            state.entries += entries
            state.delivered += UInt64(entries.count)
            state.next = max(state.next, revision + 1)
        }
        if let last = entries.last { self.newest.advance(to: last.position) }
    }

    /// Entries from `position` on, as many whole revisions as fit in about `limit` entries
    /// (never part of one: the view records a revision as applied with all its commands); `nil`
    /// when the stretch does not reach back to `position`. Entries before `position` are
    /// dropped, since the reader has applied them; what is returned stays until the reader asks
    /// past it, so a failed apply can read it again.
    func entries(from position: LogPosition, limit: Int) -> [LogEntry]? {
        let (result, dropped) = self.state.withLock { state -> ([LogEntry]?, UInt64?) in
            guard Int64(clamping: position) >= state.base else { return (nil, nil) }
            let before = state.dropped
            while state.start < state.entries.count, state.entries[state.start].position < position {
                state.start += 1
                state.dropped += 1
            }
            if state.start > 4096, state.start * 2 > state.entries.count {
                state.entries.removeFirst(state.start)
                state.start = 0
            }
            var end = state.start
            while end < state.entries.count {
                if end - state.start >= limit, state.entries[end].position != state.entries[end - 1].position { break }
                end += 1
            }
            return (Array(state.entries[state.start..<end]), state.dropped > before ? state.dropped : nil)
        }
        if let dropped { self.drained.advance(to: dropped) }
        return result
    }
}
