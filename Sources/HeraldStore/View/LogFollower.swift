public import Logging
public import ServiceLifecycle

/// Applies the command log to a view, in order, for as long as it runs: at start it catches up
/// from the view's applied position, then follows new entries as they are appended.
public struct LogFollower: Service {
    public let log: any CommandLog
    public let view: any RegistryView
    public let batchSize: Int
    let logger: Logger

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
        while try await self.applyNextBatch() {}
    }

    private func follow() async throws {
        let start = try self.view.appliedPosition()
        self.logger.debug("following the command log", metadata: ["log.applied": "\(start)"])
        while true {
            if try await self.applyNextBatch() { continue }
            let applied = try self.view.appliedPosition()
            _ = try await self.log.waitForHead(beyond: applied)
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
