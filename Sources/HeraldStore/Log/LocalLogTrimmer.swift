public import HeraldCore
public import Logging
public import ServiceLifecycle

/// Alone, keeps the store's own log a window the way a cluster keeps etcd's: every turn it folds
/// the entries the view applied past the retention into the log's base (`LocalStore.trimLog`),
/// a bounded batch to a transaction.
public struct LocalLogTrimmer<C: Clock>: Service, DescribedByName where C.Duration == Duration {
    public struct Configuration: Sendable {
        public var retention: LogRetention
        public var interval: Duration = .seconds(10)
        /// Entries folded in one transaction.
        public var batch: Int = 10_000

        public init(retention: LogRetention) {
            self.retention = retention
        }
    }

    public let configuration: Configuration
    let store: LocalStore
    let clock: C
    let logger: Logger

    public init(configuration: Configuration, store: LocalStore, clock: C, logger: Logger) {
        self.configuration = configuration
        self.store = store
        self.clock = clock
        self.logger = logger
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            var history = LogRetention.HeadHistory<C.Instant>()
            while !Task.isCancelled {
                do {
                    try await self.turn(&history)
                } catch is CancellationError {
                    return
                } catch {
                    self.logger.warning("cannot trim the store's log this turn; trying again", metadata: ["error": "\(error)"])
                }
                try await self.clock.sleep(for: self.configuration.interval)
            }
        }
    }

    /// One turn; returns how many entries it folded into the base.
    @discardableResult
    public func turn(_ history: inout LogRetention.HeadHistory<C.Instant>) async throws -> Int {
        let now = self.clock.now
        history.record(head: try await self.store.log.head(), at: now)
        let target = self.configuration.retention.trimPoint(
            applied: [try self.store.view.appliedPosition()],
            headDurationAgo: history.head(atLeast: self.configuration.retention.duration, before: now)
        )
        guard target > (try self.store.logBasePosition()) else { return 0 }
        var folded = 0
        while true {
            // Between batches, writers go first: the store has one writer thread.
            let batch = try await self.store.trimLog(through: target, limit: self.configuration.batch)
            folded += batch
            if batch == 0 { break }
        }
        if folded > 0 {
            let base = try self.store.logBasePosition()
            self.logger.info("trimmed the store's log", metadata: ["log.base": "\(base)", "log.folded": "\(folded)"])
        }
        return folded
    }
}
