public import HeraldCore
public import HeraldStore
public import Logging
public import ServiceLifecycle

/// Keeps the shared log a window (ARCHITECTURE.md, "etcd holds a window, not the state"): every
/// turn this member publishes how far its view has applied, and the one member holding the
/// trimmer's role deletes, in bounded batches, what every live member has applied past the
/// retention, then lets the backend compact its history up to there.
public struct LogWindowKeeper<C: Clock>: Service, DescribedByName where C.Duration == Duration {
    public struct Configuration: Sendable {
        public var retention: LogRetention
        /// Between two turns.
        public var interval: Duration = .seconds(10)
        /// Entries deleted in one request to the backend; a turn deletes until none is left.
        public var batch: Int = 1000

        public init(retention: LogRetention) {
            self.retention = retention
        }
    }

    public let configuration: Configuration
    let backend: any LogWindowBackend
    let log: any CommandLog
    let membership: Membership
    let appliedPosition: @Sendable () throws -> LogPosition
    let clock: C
    let logger: Logger
    let metrics: LogWindowMetrics

    public init(
        configuration: Configuration,
        backend: any LogWindowBackend,
        log: any CommandLog,
        membership: Membership,
        appliedPosition: @escaping @Sendable () throws -> LogPosition,
        clock: C,
        metrics: LogWindowMetrics,
        logger: Logger
    ) {
        self.configuration = configuration
        self.backend = backend
        self.log = log
        self.membership = membership
        self.appliedPosition = appliedPosition
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            var history = LogRetention.HeadHistory<C.Instant>()
            var published: Published?
            while !Task.isCancelled {
                do {
                    try await self.turn(&history, published: &published)
                } catch is CancellationError {
                    return
                } catch {
                    self.logger.warning("cannot keep the log's window this turn; trying again", metadata: ["error": "\(error)"])
                }
                try await self.clock.sleep(for: self.configuration.interval)
            }
        }
    }

    /// What this member last published, so an unchanged position is not written again (each
    /// write is a revision of the backend's history).
    struct Published: Equatable {
        var lease: MemberLease
        var position: LogPosition
    }

    /// One turn: publish, and trim when this member holds the role. Returns how many entries it
    /// deleted.
    @discardableResult
    func turn(_ history: inout LogRetention.HeadHistory<C.Instant>, published: inout Published?) async throws -> Int {
        let snapshot = self.membership.snapshot
        guard let lease = snapshot.lease else {
            history.reset()
            return 0
        }
        let nodeID = self.membership.configuration.nodeID
        let applied = try self.appliedPosition()
        let now = Published(lease: lease, position: applied)
        if published != now {
            try await self.backend.publishApplied(applied, member: nodeID, lease: lease)
            published = now
        }
        guard try await self.backend.claimTrimmer(member: nodeID, lease: lease) else {
            history.reset()
            self.metrics.trimmer(false)
            return 0
        }
        self.metrics.trimmer(true)
        let instant = self.clock.now
        history.record(head: try await self.log.head(), at: instant)
        // Only live members count: one whose lease ended starts from a snapshot if it returns
        // below the trim point.
        var positions = try await self.backend.appliedPositions()
        positions[nodeID] = applied
        let target = self.configuration.retention.trimPoint(
            applied: positions.values,
            headDurationAgo: history.head(atLeast: self.configuration.retention.duration, before: instant)
        )
        let current = try await self.backend.trimPoint()
        self.metrics.trimPoint(max(current, target))
        guard target > current else { return 0 }
        var deleted = 0
        while true {
            let batch = try await self.backend.trim(through: target, limit: self.configuration.batch)
            deleted += batch
            self.metrics.deleted(batch)
            if batch == 0 { break }
        }
        try await self.backend.compact(through: target)
        self.logger.info("trimmed the log", metadata: ["log.trim-point": "\(target)", "log.deleted": "\(deleted)", "members.applied": "\(positions)"])
        return deleted
    }
}
