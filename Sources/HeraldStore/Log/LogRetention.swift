/// How much of a log is kept past what every view following it has applied: at least
/// `revisions` positions and at least `duration` of history, whichever keeps more. In a cluster,
/// a member that returns after its lease ended finds the log still holding what it missed if it
/// was away for less than this; otherwise it starts from a snapshot. Alone, it is the history
/// `herald store verify` and a tool reading the log still see.
public struct LogRetention: Sendable, Hashable {
    public var revisions: UInt64
    public var duration: Duration

    public init(revisions: UInt64, duration: Duration) {
        self.revisions = revisions
        self.duration = duration
    }

    /// The history the trimmer has watched: the log's head at each of its turns, oldest first,
    /// so it can tell which position was the head `duration` ago. Kept only while it holds the
    /// role: a member that takes it over starts with none and trims by duration only after
    /// watching that long, which keeps more, never less.
    public struct HeadHistory<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
        private var samples: [(at: Instant, head: LogPosition)] = []

        public init() {}

        public mutating func record(head: LogPosition, at now: Instant) {
            self.samples.append((now, head))
        }

        /// The newest head recorded at least `age` before `now`, dropping the samples older than
        /// it (never needed again); `nil` when none is that old.
        public mutating func head(atLeast age: Duration, before now: Instant) -> LogPosition? {
            guard let index = self.samples.lastIndex(where: { $0.at.duration(to: now) >= age }) else { return nil }
            self.samples.removeFirst(index)
            return self.samples.first?.head
        }

        public mutating func reset() {
            self.samples = []
        }
    }

    /// The position through which the log may be trimmed: below every live member's applied
    /// position by `revisions`, and no later than the head `duration` ago. 0 when nothing may go.
    public func trimPoint(applied: some Collection<LogPosition>, headDurationAgo: LogPosition?) -> LogPosition {
        guard let lowest = applied.min(), let old = headDurationAgo else { return 0 }
        let byCount = lowest > self.revisions ? lowest - self.revisions : 0
        return min(byCount, old)
    }
}
