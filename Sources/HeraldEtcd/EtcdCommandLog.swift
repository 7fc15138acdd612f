public import HeraldStore
public import CoreMetrics
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
/// Appends are group-committed: a transaction carries the waiting appends of up to
/// `partitionsPerTransaction` partitions (each with its own fence and log key), and a partition
/// is in at most one transaction in flight, so its appends stay in order. etcd's cost is mostly per request, so this is what lets a busy node write
/// far more than etcd's single appends per second.
///
/// `run()` watches the log from the view's applied revision, as one stream, and holds what it
/// hears for the follower (`entries` reads etcd only for what the watch does not cover, such as
/// before it starts); run it as a service before the follower.
public actor EtcdCommandLog: CommandLog, Service, DescribedByName {
    public struct Configuration: Sendable {
        /// Prefix of every key Herald writes: `herald/`.
        public var prefix: String = "herald/"
        public var partitions: Int = 256
        /// Most commands of one partition in one transaction.
        public var maximumBatch: Int = 256
        /// Most partitions in one transaction (etcd allows 128 operations per branch by default;
        /// each partition takes two puts).
        public var partitionsPerTransaction: Int = 32
        /// Most encoded command bytes in one transaction (etcd refuses requests over 1.5 MiB).
        public var maximumTransactionBytes: Int = 1 << 20
        /// Transactions in flight at once. One, so appends that arrive meanwhile wait and go
        /// together: on this machine one gave 1,425 registrations/s against 1,075 with four,
        /// since etcd's cost is per transaction.
        public var concurrentTransactions: Int = 1
        /// Written as the partition head's value: which node appended last, for operators.
        public var writer: String = ""
        /// A watch that hears nothing this long (no event, no progress report) is restarted.
        public var watchSilenceLimit: Duration = .seconds(30)
        /// Most entries the watch holds for a follower that has not read them; beyond it the
        /// watch waits.
        public var watchBuffer: Int = 8192
        /// Seals entries, so etcd's data holds no token; every node needs the same key ring.
        public var cipher: StoreCipher?

        public init() {}
    }

    private struct Pending {
        var commands: [RegistryCommand]
        var bytes: Int
        /// Order of arrival, so the partition waiting longest goes first.
        var sequence: UInt64
        var continuation: CheckedContinuation<LogPosition, any Error>
    }

    /// One partition's share of a transaction.
    private struct Group {
        var partition: Int
        var pending: [Pending]
        var bound: Int64 = 0
        var key: [UInt8] = []
        var value: [UInt8] = []
    }

    public nonisolated let client: EtcdClient
    public nonisolated let configuration: Configuration
    /// What this node's view has applied: appends to a partition are valid only against it.
    private nonisolated let appliedPosition: @Sendable () throws -> LogPosition
    private nonisolated let logger: Logger
    private nonisolated let metrics: EtcdLogMetrics
    /// What the watch delivered and the follower has not applied.
    private nonisolated let watched: WatchedLogEntries
    /// This node's own last successful append per partition, which its view may not have
    /// applied yet.
    private var ownHeads: [Int: Int64] = [:]
    private var queues: [Int: [Pending]] = [:]
    /// Partitions in a transaction in flight.
    private var busy: Set<Int> = []
    private var inFlight = 0
    private var sequence: UInt64 = 0

    public init(
        client: EtcdClient,
        configuration: Configuration = .init(),
        appliedPosition: @escaping @Sendable () throws -> LogPosition,
        metrics: any MetricsFactory = MetricsSystem.factory,
        logger: Logger
    ) {
        self.client = client
        self.configuration = configuration
        self.appliedPosition = appliedPosition
        self.metrics = EtcdLogMetrics(factory: metrics)
        self.logger = logger
        self.watched = WatchedLogEntries(capacity: configuration.watchBuffer)
    }

    // MARK: Keys

    /// Prefix of every log key.
    public nonisolated var logPrefix: [UInt8] { Array((self.configuration.prefix + "log/").utf8) }

    nonisolated var headPrefix: [UInt8] { Array((self.configuration.prefix + "head/").utf8) }

    /// The trim point, in decimal: entries at or below it may be gone (`EtcdLogWindow`).
    nonisolated var trimKey: [UInt8] { Array((self.configuration.prefix + "trim").utf8) }

    /// The position through which entries may have been deleted; 0 while none was.
    public nonisolated func trimPoint() async throws -> LogPosition {
        do {
            let answer = try await self.client.range(self.trimKey)
            return answer.keyValues.first.flatMap { LogPosition(String(decoding: $0.value, as: UTF8.self)) } ?? 0
        } catch let error as EtcdError {
            throw Self.storeError(error)
        }
    }

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
            let bytes = run.reduce(0) { $0 + $1.encoded().count }
            let position = try await withCheckedThrowingContinuation { continuation in
                self.sequence += 1
                self.enqueue(Pending(commands: run, bytes: bytes, sequence: self.sequence, continuation: continuation), partition: partition)
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
    nonisolated func readEntries(from position: LogPosition, limit: Int) async throws -> [LogEntry] {
        let prefix = self.logPrefix
        var limit = max(limit, 1)
        var keyValues: [EtcdKeyValue]
        while true {
            let result: EtcdRangeResult
            do {
                result = try await self.client.range(
                    prefix,
                    rangeEnd: EtcdKey.prefixEnd(prefix),
                    limit: Int64(limit),
                    minModRevision: Int64(max(position, 1)),
                    sortByModRevision: true
                )
            } catch let error as EtcdError {
                throw Self.storeError(error)
            }
            keyValues = result.keyValues
            // One transaction writes several partitions' keys at one revision: a limit that cuts
            // through a revision would have the view record it applied with commands missing.
            guard result.more, let last = keyValues.last else { break }
            let whole = keyValues.filter { $0.modRevision != last.modRevision }
            if !whole.isEmpty {
                keyValues = whole
                break
            }
            limit *= 2
        }
        // Read after the entries: the trim point only grows, so one still below `position` now
        // was below it when they were read, and none of them was missing.
        let trimmed = try await self.trimPoint()
        guard trimmed < position else {
            throw StoreError(
                .trimmed,
                "the log no longer holds the entries from position \(position) on (trimmed through \(trimmed)): this node's view is too far behind to catch up from it. Restart the node: with its store below the trim point it restores a live member's snapshot first"
            )
        }
        var entries: [LogEntry] = []
        for keyValue in keyValues {
            entries += try Self.entries(of: keyValue, cipher: self.configuration.cipher)
        }
        return entries
    }

    static func entries(of keyValue: EtcdKeyValue, cipher: StoreCipher?) throws -> [LogEntry] {
        let value = try EtcdLogEntryValue.decoded(from: try cipher.open(keyValue.value, context: keyValue.key))
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

    /// `etcd:<cluster id in hex>/<prefix>`: another etcd cluster (or one restored from a backup)
    /// or another prefix is another log.
    public nonisolated func source() async throws -> String {
        do {
            let answer = try await self.client.range(self.headPrefix, limit: 1, keysOnly: true)
            return "etcd:" + String(answer.clusterID, radix: 16) + "/" + self.configuration.prefix
        } catch let error as EtcdError {
            throw Self.storeError(error)
        }
    }

    /// Wakes when the watch delivers an entry beyond `position`.
    public nonisolated func waitForHead(beyond position: LogPosition) async throws -> LogPosition {
        try await self.watched.newest.wait(beyond: position)
    }

    /// How many tasks wait in `waitForHead`.
    nonisolated var headWaiters: Int { self.watched.newest.waiting }

    // MARK: Appending

    private func enqueue(_ pending: Pending, partition: Int) {
        self.queues[partition, default: []].append(pending)
        self.schedule()
    }

    /// Starts transactions while fewer than `concurrentTransactions` are in flight and some
    /// partition not in one has appends waiting.
    private func schedule() {
        while self.inFlight < max(self.configuration.concurrentTransactions, 1) {
            let ready = self.queues
                .filter { !self.busy.contains($0.key) && !$0.value.isEmpty }
                .sorted { $0.value[0].sequence < $1.value[0].sequence }
            guard !ready.isEmpty else { return }
            var groups: [Group] = []
            var bytes = 0
            for (partition, queue) in ready.prefix(max(self.configuration.partitionsPerTransaction, 1)) {
                var taken: [Pending] = []
                var count = 0
                // A prefix of the queue, so what is removed below is exactly what was taken.
                for pending in queue {
                    let fits = count + pending.commands.count <= self.configuration.maximumBatch
                        && bytes + pending.bytes <= self.configuration.maximumTransactionBytes
                    if !(taken.isEmpty && groups.isEmpty) && !fits { break }
                    taken.append(pending)
                    count += pending.commands.count
                    bytes += pending.bytes
                }
                guard !taken.isEmpty else { break }
                self.queues[partition]?.removeFirst(taken.count)
                if self.queues[partition]?.isEmpty == true { self.queues[partition] = nil }
                self.busy.insert(partition)
                groups.append(Group(partition: partition, pending: taken))
            }
            self.inFlight += 1
            // Runs only while callers await their continuations, and ends with the transaction.
            Task { await self.commit(groups) }
        }
    }

    private func commit(_ groups: [Group]) async {
        var remaining = groups
        // Each failed round fences at least one partition off, so this ends.
        while !remaining.isEmpty {
            let outcome: Result<LogPosition, any Error>
            var fenced: [Group] = []
            do {
                let result = try await self.transact(&remaining)
                switch result {
                case .committed(let position):
                    self.metrics.committed(commands: remaining.reduce(0) { $0 + $1.pending.reduce(0) { $0 + $1.commands.count } })
                    outcome = .success(position)
                case .fenced(let partitions, let heads):
                    fenced = remaining.filter { partitions.contains($0.partition) }
                    remaining.removeAll { partitions.contains($0.partition) }
                    self.metrics.fenced(commands: fenced.reduce(0) { $0 + $1.pending.reduce(0) { $0 + $1.commands.count } })
                    for group in fenced {
                        let error = StoreError(
                            .fenced,
                            "partition \(group.partition)'s head is at revision \(heads[group.partition] ?? 0), past the \(group.bound) this node has applied or written"
                        )
                        for pending in group.pending { pending.continuation.resume(throwing: error) }
                    }
                    continue
                }
            } catch {
                self.metrics.failed()
                outcome = .failure(error)
            }
            for group in remaining {
                for pending in group.pending { pending.continuation.resume(with: outcome) }
            }
            remaining = []
        }
        for group in groups { self.busy.remove(group.partition) }
        self.inFlight -= 1
        self.schedule()
    }

    private enum TransactionResult {
        case committed(LogPosition)
        /// The partitions whose fence failed, with their heads' revisions.
        case fenced(Set<Int>, [Int: Int64])
    }

    /// One transaction for every group: each partition's head must be at or below its `bound`,
    /// the newer of what the view applied and this node's own last append there.
    private func transact(_ groups: inout [Group]) async throws -> TransactionResult {
        let applied = Int64(try self.appliedPosition())
        var compares: [EtcdCompare] = []
        var success: [EtcdOperation] = []
        var failure: [EtcdOperation] = []
        for index in groups.indices {
            let partition = groups[index].partition
            let bound = max(applied, self.ownHeads[partition] ?? 0)
            groups[index].bound = bound
            groups[index].key = self.entryKey(partition, bound: bound)
            // Sealed with its key: a value copied under another key does not open.
            groups[index].value = try self.configuration.cipher.seal(
                EtcdLogEntryValue(commands: groups[index].pending.flatMap(\.commands)).encoded(),
                context: groups[index].key
            )
            let head = self.headKey(partition)
            compares.append(EtcdCompare(key: head, .modRevision(bound + 1), .less))
            success += [.put(key: head, value: Array(self.configuration.writer.utf8)), .put(key: groups[index].key, value: groups[index].value)]
            failure.append(.range(key: head))
        }
        let result: EtcdTxnResult
        do {
            result = try await self.client.txn(compares, success: success, failure: failure)
        } catch let error as EtcdError where error.mayHaveCommitted {
            // The outcome is unknown: the log keys exist exactly when the transaction committed,
            // and they were written together.
            let first = groups[0]
            let written = try? await self.client.range(first.key)
            guard let entry = written?.keyValues.first, entry.value == first.value else { throw Self.storeError(error) }
            for group in groups { self.wrote(group.partition, at: entry.modRevision) }
            return .committed(LogPosition(entry.modRevision))
        } catch let error as EtcdError {
            throw Self.storeError(error)
        }
        guard result.succeeded else {
            var fenced: Set<Int> = []
            var heads: [Int: Int64] = [:]
            for (group, range) in zip(groups, result.ranges) {
                let head = range.first?.modRevision ?? 0
                heads[group.partition] = head
                if head > group.bound { fenced.insert(group.partition) }
            }
            // A compare failed but no head shows why (it moved back? never): fence them all
            // rather than try again forever.
            return .fenced(fenced.isEmpty ? Set(groups.map(\.partition)) : fenced, heads)
        }
        for group in groups { self.wrote(group.partition, at: result.revision) }
        return .committed(LogPosition(result.revision))
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
                    for event in batch.events { entries += try Self.entries(of: event.keyValue, cipher: self.configuration.cipher) }
                    try await self.watched.deliver(entries, through: batch.revision)
                }
            } catch is CancellationError {
                return
            } catch let error as EtcdError where error.code == .compacted {
                // The history the watch needed is gone; the log keys are not (each is written
                // once), so the follower reads them by range up to now and the watch starts here.
                // The follower may be waiting for news already: the newest partition head wakes
                // it, and it is a real entry, so it waits again once it has applied it.
                let heads = try? await self.client.range(self.headPrefix, rangeEnd: EtcdKey.prefixEnd(self.headPrefix), keysOnly: true)
                guard let heads else {
                    try await Task.sleep(for: .seconds(1))
                    continue
                }
                self.watched.restart(at: heads.revision + 1)
                self.watched.newest.advance(to: LogPosition(heads.keyValues.map(\.modRevision).max() ?? 0))
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
