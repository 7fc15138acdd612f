public import HeraldCore
public import Logging
public import ServiceLifecycle

/// The command log of a cluster, in etcd (ARCHITECTURE.md, "State and the replicated log").
///
/// Each append goes to its partition as one transaction that is **fenced**: it compares the
/// partition's head key and succeeds only if the head is not newer than what this node has
/// applied (or last wrote itself), then moves the head and puts one log key holding the commands.
/// A node that has not seen another's write to the partition, or that lost ownership while cut
/// off, fails that compare (`StoreError.fenced`) and writes nothing. etcd's revision is the log
/// position: the commands of one transaction share it.
///
/// Appends to one partition are group-committed: one transaction in flight per partition, the
/// appends that arrive meanwhile go into the next together.
///
/// `run()` watches the log from the view's applied revision, as one stream, and holds what it
/// hears for the follower (`entries` reads etcd only for what the watch does not cover, such as
/// before it starts); run it as a service before the follower.
public actor EtcdCommandLog: CommandLog, Service {
    public struct Configuration: Sendable {
        /// Prefix of every key Herald writes: `herald/`.
        public var prefix: String = "herald/"
        public var partitions: Int = 256
        /// Most commands in one transaction (etcd refuses requests over 1.5 MiB).
        public var maximumBatch: Int = 256
        /// Written as the partition head's value: which node appended last, for operators.
        public var writer: String = ""
        /// A watch that hears nothing this long (no event, no progress report) is restarted.
        public var watchSilenceLimit: Duration = .seconds(30)
        /// Most entries the watch holds for a follower that has not read them; beyond it the
        /// watch waits.
        public var watchBuffer: Int = 8192

        public init() {}
    }

    private struct Pending {
        var commands: [RegistryCommand]
        var continuation: CheckedContinuation<LogPosition, any Error>
    }

    public nonisolated let client: EtcdClient
    public nonisolated let configuration: Configuration
    /// What this node's view has applied: appends to a partition are valid only against it.
    private nonisolated let appliedPosition: @Sendable () throws -> LogPosition
    private nonisolated let logger: Logger
    /// What the watch delivered and the follower has not applied.
    private nonisolated let watched: WatchedLogEntries
    /// This node's own last successful append per partition, which its view may not have
    /// applied yet.
    private var ownHeads: [Int: Int64] = [:]
    private var queues: [Int: [Pending]] = [:]
    private var flushing: Set<Int> = []

    public init(
        client: EtcdClient,
        configuration: Configuration = .init(),
        appliedPosition: @escaping @Sendable () throws -> LogPosition,
        logger: Logger
    ) {
        self.client = client
        self.configuration = configuration
        self.appliedPosition = appliedPosition
        self.logger = logger
        self.watched = WatchedLogEntries(capacity: configuration.watchBuffer)
    }

    // MARK: Keys

    nonisolated var logPrefix: [UInt8] { Array((self.configuration.prefix + "log/").utf8) }

    nonisolated var headPrefix: [UInt8] { Array((self.configuration.prefix + "head/").utf8) }

    nonisolated func headKey(_ partition: Int) -> [UInt8] {
        self.headPrefix + Array(Self.partitionName(partition).utf8)
    }

    /// The log key of the append whose fence was `bound`: unique, since a later append to the
    /// partition needs a bound at least the revision of this one.
    nonisolated func entryKey(_ partition: Int, bound: Int64) -> [UInt8] {
        let digits = String(bound)
        return Array((self.configuration.prefix + "log/" + Self.partitionName(partition) + "/" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits).utf8)
    }

    static func partitionName(_ partition: Int) -> String {
        let digits = String(partition)
        return "p" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    // MARK: CommandLog

    @discardableResult
    public func append(_ commands: [RegistryCommand]) async throws -> [LogPosition] {
        var positions: [LogPosition] = []
        // A call's commands keep their order within each partition; across partitions they are
        // independent writes.
        var start = 0
        while start < commands.count {
            let partition = commands[start].key.partition(of: self.configuration.partitions)
            var end = start + 1
            while end < commands.count, commands[end].key.partition(of: self.configuration.partitions) == partition { end += 1 }
            let run = Array(commands[start..<end])
            let position = try await withCheckedThrowingContinuation { continuation in
                self.enqueue(Pending(commands: run, continuation: continuation), partition: partition)
            }
            positions += Array(repeating: position, count: run.count)
            start = end
        }
        return positions
    }

    public nonisolated func entries(from position: LogPosition, limit: Int) async throws -> [LogEntry] {
        if let entries = self.watched.entries(from: position, limit: limit) { return entries }
        return try await self.readEntries(from: position, limit: limit)
    }

    /// Reads entries from etcd: a range over the whole log prefix filtered by revision, so only
    /// for what the watch has not covered.
    private nonisolated func readEntries(from position: LogPosition, limit: Int) async throws -> [LogEntry] {
        let prefix = self.logPrefix
        let result: EtcdRangeResult
        do {
            result = try await self.client.range(
                prefix,
                rangeEnd: EtcdKey.prefixEnd(prefix),
                limit: Int64(max(limit, 1)),
                minModRevision: Int64(max(position, 1)),
                sortByModRevision: true
            )
        } catch let error as EtcdError {
            throw Self.storeError(error)
        }
        var entries: [LogEntry] = []
        for keyValue in result.keyValues {
            entries += try Self.entries(of: keyValue)
        }
        return entries
    }

    static func entries(of keyValue: EtcdKeyValue) throws -> [LogEntry] {
        let value = try EtcdLogEntryValue.decoded(from: keyValue.value)
        return value.commands.map { LogEntry(position: LogPosition(keyValue.modRevision), command: $0) }
    }

    /// The newest partition head: every append moves its partition's head in the same
    /// transaction, so this is the log's last position, read from `partitions` keys however
    /// long the log grows.
    public nonisolated func head() async throws -> LogPosition {
        let prefix = self.headPrefix
        do {
            let heads = try await self.client.range(prefix, rangeEnd: EtcdKey.prefixEnd(prefix), keysOnly: true)
            return LogPosition(heads.keyValues.map(\.modRevision).max() ?? 0)
        } catch let error as EtcdError {
            throw Self.storeError(error)
        }
    }

    /// Wakes when the watch delivers an entry beyond `position`.
    public nonisolated func waitForHead(beyond position: LogPosition) async throws -> LogPosition {
        try await self.watched.newest.wait(beyond: position)
    }

    // MARK: Appending

    private func enqueue(_ pending: Pending, partition: Int) {
        self.queues[partition, default: []].append(pending)
        guard !self.flushing.contains(partition) else { return }
        self.flushing.insert(partition)
        // Runs only while callers await their continuations and ends with the queue.
        Task { await self.flush(partition) }
    }

    private func flush(_ partition: Int) async {
        while let queue = self.queues[partition], !queue.isEmpty {
            var batch: [Pending] = []
            var count = 0
            // A prefix of the queue, so what is removed below is exactly what was batched.
            for pending in queue {
                if !batch.isEmpty, count + pending.commands.count > self.configuration.maximumBatch { break }
                batch.append(pending)
                count += pending.commands.count
            }
            self.queues[partition]?.removeFirst(batch.count)
            do {
                let position = try await self.commit(batch.flatMap(\.commands), partition: partition)
                for pending in batch { pending.continuation.resume(returning: position) }
            } catch {
                for pending in batch { pending.continuation.resume(throwing: error) }
            }
        }
        self.queues[partition] = nil
        self.flushing.remove(partition)
    }

    /// One fenced transaction: the partition's head must be at or below `bound`, the newer of
    /// what the view applied and this node's own last append there.
    private func commit(_ commands: [RegistryCommand], partition: Int) async throws -> LogPosition {
        let applied = Int64(try self.appliedPosition())
        let bound = max(applied, self.ownHeads[partition] ?? 0)
        let head = self.headKey(partition)
        let key = self.entryKey(partition, bound: bound)
        let value = EtcdLogEntryValue(commands: commands).encoded()
        let result: EtcdTxnResult
        do {
            result = try await self.client.txn(
                [EtcdCompare(key: head, .modRevision(bound + 1), .less)],
                success: [.put(key: head, value: Array(self.configuration.writer.utf8)), .put(key: key, value: value)],
                failure: [.range(key: head)]
            )
        } catch let error as EtcdError where error.mayHaveCommitted {
            // The outcome is unknown: the log key exists exactly when the transaction committed.
            let written = try? await self.client.range(key)
            guard let entry = written?.keyValues.first, entry.value == value else { throw Self.storeError(error) }
            self.wrote(partition, at: entry.modRevision)
            return LogPosition(entry.modRevision)
        } catch let error as EtcdError {
            throw Self.storeError(error)
        }
        guard result.succeeded else {
            let current = result.ranges.first?.first?.modRevision ?? 0
            throw StoreError(
                .fenced,
                "partition \(partition)'s head is at revision \(current), past the \(bound) this node has applied or written"
            )
        }
        self.wrote(partition, at: result.revision)
        return LogPosition(result.revision)
    }

    private func wrote(_ partition: Int, at revision: Int64) {
        self.ownHeads[partition] = max(self.ownHeads[partition] ?? 0, revision)
    }

    static func storeError(_ error: EtcdError) -> StoreError {
        switch error.code {
        case .unavailable, .noSpace: StoreError(.unavailable, "\(error)")
        default: StoreError(.lmdb, "\(error)")
        }
    }

    // MARK: Watching

    /// Streams the log into `watched` for the follower, restarting the watch (on the next
    /// member) after any failure, with a growing pause, from where the last one stopped.
    public func run() async throws {
        try await cancelWhenGracefulShutdown {
            try await self.follow()
        }
    }

    private nonisolated func follow() async throws {
        var failures = 0
        // Never from before what the view applied: that would replay the retained history.
        self.watched.restart(at: Int64(try self.appliedPosition()) + 1)
        while !Task.isCancelled {
            let from = self.watched.resumeRevision
            do {
                try await self.client.watch(
                    prefix: self.logPrefix,
                    from: from,
                    silenceLimit: self.configuration.watchSilenceLimit
                ) { batch in
                    var entries: [LogEntry] = []
                    for event in batch.events { entries += try Self.entries(of: event.keyValue) }
                    try await self.watched.deliver(entries, through: batch.revision)
                }
            } catch is CancellationError {
                return
            } catch let error as EtcdError where error.code == .compacted {
                // The history the watch needed is gone; the log keys are not (each is written
                // once), so the follower reads them by range up to now and the watch starts here.
                let now = try? await self.client.range(self.headPrefix, rangeEnd: EtcdKey.prefixEnd(self.headPrefix), limit: 1, keysOnly: true)
                guard let now else {
                    try await Task.sleep(for: .seconds(1))
                    continue
                }
                self.watched.restart(at: now.revision + 1)
                self.logger.notice("the etcd log watch's history was compacted; reading the log by range", metadata: ["error": "\(error)"])
            } catch {
                // A watch that got anywhere before failing starts the pauses over.
                failures = self.watched.resumeRevision > from ? 1 : failures + 1
                let pause = Duration.milliseconds(100 * (1 << min(failures, 8)))
                self.logger.warning("the etcd log watch failed; restarting", metadata: ["error": "\(error)", "retry.in": "\(pause)"])
                try await Task.sleep(for: pause)
            }
        }
    }
}
