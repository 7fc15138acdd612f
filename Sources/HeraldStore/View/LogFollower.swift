public import HeraldCore
public import Logging
public import ServiceLifecycle

/// Applies the command log to a view, in order, for as long as it runs: at start it catches up
/// from the view's applied position, then follows new entries as they are appended.
///
/// A failure to read or apply (a full map, a damaged entry) does not stop the node: the follower
/// logs it and tries again with growing pauses, and `/readyz` reports the view as behind.
public struct LogFollower: Service, DescribedByName {
    public let log: any CommandLog
    public let view: any RegistryView
    public let batchSize: Int
    let logger: Logger

    /// Pauses between failed attempts: 100 ms doubling to at most 30 s.
    static func retryDelay(afterFailures failures: Int) -> Duration {
        .milliseconds(100 * (1 << min(max(failures - 1, 0), 9))).clamped(to: .seconds(30))
    }

    public init(log: any CommandLog, view: any RegistryView, batchSize: Int = 1024, logger: Logger) {
        self.log = log
        self.view = view
        self.batchSize = batchSize
        self.logger = logger
    }

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                try await self.follow()
            }
        } catch is CancellationError {
            // Shutdown: whatever was applied is committed; the next start resumes from there.
        }
    }

    /// Applies everything appended so far and returns; used at start-up and by tools.
    public func catchUp() async throws {
        try await self.view.claimSource(try await self.log.source())
        while try await self.applyNextBatch() {}
    }

    private func follow() async throws {
        var failures = 0
        // Nothing is applied, and no writer proceeds, before the view is known to belong to this
        // log. A view built from another cannot be fixed by waiting: the node stops.
        while true {
            do {
                try await self.view.claimSource(try await self.log.source())
                break
            } catch let error as StoreError where error.code == .wrongLog {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                failures += 1
                let delay = Self.retryDelay(afterFailures: failures)
                self.logger.error("cannot tell which log to follow; retrying", metadata: ["error": "\(error)", "retry.in": "\(delay)"])
                try await Task.sleep(for: delay)
            }
        }
        failures = 0
        while true {
            do {
                if try await self.applyNextBatch() {
                    failures = 0
                    continue
                }
                failures = 0
                let applied = try self.view.appliedPosition()
                _ = try await self.log.waitForHead(beyond: applied)
            } catch is CancellationError {
                throw CancellationError()
            } catch let error as StoreError where error.code == .trimmed {
                // Waiting cannot bring deleted entries back: the node stops, and started again
                // it restores a snapshot before it opens the store.
                self.logger.critical("the view is below the log's trim point; stopping", metadata: ["error": "\(error)"])
                throw error
            } catch {
                failures += 1
                let delay = Self.retryDelay(afterFailures: failures)
                self.logger.error(
                    "cannot apply the command log; retrying",
                    metadata: ["error": "\(error)", "log.failures": "\(failures)", "retry.in": "\(delay)"]
                )
                try await Task.sleep(for: delay)
            }
        }
    }

    /// Applies one batch; returns whether there was anything to apply.
    private func applyNextBatch() async throws -> Bool {
        let applied = try self.view.appliedPosition()
        let batch = try await self.log.entries(from: applied + 1, limit: self.batchSize)
        guard !batch.isEmpty else { return false }
        try await self.view.apply(batch)
        return true
    }
}

extension Duration {
    fileprivate func clamped(to maximum: Duration) -> Duration {
        min(self, maximum)
    }
}
