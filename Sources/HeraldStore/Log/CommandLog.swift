public import HeraldCore

/// The ordered, durable log of registry commands every view is built from.
///
/// Alone, a node keeps it in its own LMDB; in a cluster it lives in etcd. Either way an append
/// returns only once the command is durable, and positions only grow.
public protocol CommandLog: Sendable {
    /// Appends `commands` in order, durably, and returns the position of each.
    @discardableResult
    func append(_ commands: [RegistryCommand]) async throws -> [LogPosition]

    /// Up to `limit` entries with positions ≥ `position`, in order.
    func entries(from position: LogPosition, limit: Int) async throws -> [LogEntry]

    /// Position of the last entry, 0 when the log is empty.
    func head() async throws -> LogPosition

    /// Returns once the head is beyond `position`, with the new head. Throws `CancellationError`
    /// when the calling task is cancelled.
    func waitForHead(beyond position: LogPosition) async throws -> LogPosition

    /// Which log this is, as a view records it: `local`, or the etcd cluster and key prefix.
    func source() async throws -> String
}

extension CommandLog {
    @discardableResult
    public func append(_ command: RegistryCommand) async throws -> LogPosition {
        let positions = try await self.append([command])
        return positions[0]
    }

    /// Every entry from `position` on, in order, waiting for new ones as they are appended.
    /// Entries are read a batch at a time as the consumer asks for them, so a slow consumer never
    /// holds more than one batch in memory.
    public func watch(from position: LogPosition, batchSize: Int = 512) -> LogWatch {
        LogWatch(log: self, start: max(position, 1), batchSize: max(batchSize, 1))
    }
}
