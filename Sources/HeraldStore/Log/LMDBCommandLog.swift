public import HeraldCore

/// The embedded command log: entries keyed by position in an LMDB database.
///
/// Appends are group-committed: while one transaction is being written and synced, further
/// appends queue up and go into the next transaction together, so throughput grows with
/// concurrency instead of being capped at one fsync per command.
public actor LMDBCommandLog: CommandLog {
    /// Most commands written in one transaction.
    public static let maximumBatch = 4096

    private struct Pending {
        var commands: [RegistryCommand]
        var continuation: CheckedContinuation<[LogPosition], any Error>
    }

    private let writer: StoreWriter
    private let environment: LMDBEnvironment
    private let table: Table<UInt64, RegistryCommand>
    /// Holds the base position: entries at or below it were folded into the base and deleted.
    private let meta: Table<String, UInt64>?
    /// Seals commands at rest; `nil` keeps them as they are.
    private let cipher: StoreCipher?
    private let headSignal: PositionSignal
    private var pending: [Pending] = []
    private var isFlushing = false

    /// Meta key of the base position.
    static let baseKey = "log-base-position"

    public init(writer: StoreWriter, database: LMDBDatabase, meta: LMDBDatabase? = nil, cipher: StoreCipher? = nil) throws {
        self.cipher = cipher
        self.writer = writer
        self.environment = writer.environment
        self.table = Table(database)
        self.meta = meta.map(Table.init)
        let table = self.table
        let metaTable = self.meta
        // Trimming always keeps the newest entry; a log trimmed empty by an older build would
        // still go on from its base.
        let head = try writer.environment.read { txn in
            max(try table.lastKey(in: txn) ?? 0, try metaTable?.get(Self.baseKey, in: txn) ?? 0)
        }
        self.headSignal = PositionSignal(position: head)
    }

    @discardableResult
    public func append(_ commands: [RegistryCommand]) async throws -> [LogPosition] {
        guard !commands.isEmpty else { return [] }
        return try await withCheckedThrowingContinuation { continuation in
            self.pending.append(Pending(commands: commands, continuation: continuation))
            if !self.isFlushing {
                self.isFlushing = true
                // Runs only while some caller awaits its continuation, and ends when the queue is
                // empty: an unstructured task here cannot outlive the work it serves.
                Task { await self.flush() }
            }
        }
    }

    private func flush() async {
        while !self.pending.isEmpty {
            var batch: [Pending] = []
            var count = 0
            while let next = self.pending.first, batch.isEmpty || count + next.commands.count <= Self.maximumBatch {
                batch.append(self.pending.removeFirst())
                count += next.commands.count
            }
            do {
                try await self.commit(batch)
            } catch let error as StoreError where error.code == .full && batch.count > 1 {
                // A full map refuses the batch as a whole; retried one caller at a time, the
                // small appends that still fit succeed and only the ones that do not fail.
                for request in batch {
                    do {
                        try await self.commit([request])
                    } catch {
                        request.continuation.resume(throwing: error)
                    }
                }
            } catch {
                for request in batch {
                    request.continuation.resume(throwing: error)
                }
            }
        }
        self.isFlushing = false
    }

    /// Writes the commands of `batch` in one transaction and resumes each caller with its
    /// positions; on error nothing is written and no caller is resumed.
    private func commit(_ batch: [Pending]) async throws {
        let commands = batch.flatMap(\.commands)
        let table = self.table
        let cipher = self.cipher
        let meta = self.meta
        let first = try await self.writer.write { txn in
            let first = max(try table.lastKey(in: txn) ?? 0, try meta?.get(Self.baseKey, in: txn) ?? 0) + 1
            for (offset, command) in commands.enumerated() {
                let position = first + UInt64(offset)
                try txn.put(try cipher.seal(command.encoded(), context: Self.context(position)), in: table.database, key: position.storeKeyBytes)
            }
            return first
        }
        var position = first
        for request in batch {
            let positions = (0..<request.commands.count).map { position + UInt64($0) }
            position += UInt64(request.commands.count)
            request.continuation.resume(returning: positions)
        }
        self.headSignal.advance(to: position - 1)
    }

    public nonisolated func entries(from position: LogPosition, limit: Int) async throws -> [LogEntry] {
        guard limit > 0 else { return [] }
        let table = self.table
        let cipher = self.cipher
        let meta = self.meta
        return try self.environment.read { txn in
            let base = try meta?.get(Self.baseKey, in: txn) ?? 0
            guard base == 0 || position > base else {
                throw StoreError(.trimmed, "the log's entries through position \(base) were folded into its base; it holds \(base + 1) on, not \(position)")
            }
            var entries: [LogEntry] = []
            try txn.forEach(in: table.database, from: max(position, 1).storeKeyBytes) { keyBytes, value in
                let key = try UInt64(storeKeyBytes: keyBytes)
                let command = try RegistryCommand.decoded(from: try cipher.open(value, context: Self.context(key)))
                entries.append(LogEntry(position: key, command: command))
                return entries.count < limit
            }
            return entries
        }
    }

    /// What an entry is sealed with: its position, so entries cannot be reordered.
    static func context(_ position: LogPosition) -> [UInt8] {
        Array("log:".utf8) + position.storeKeyBytes
    }

    public nonisolated func source() async throws -> String { "local" }

    public nonisolated func head() async throws -> LogPosition {
        self.headSignal.position
    }

    public nonisolated func waitForHead(beyond position: LogPosition) async throws -> LogPosition {
        try await self.headSignal.wait(beyond: position)
    }

    /// How many tasks wait in `waitForHead`.
    nonisolated var headWaiters: Int { self.headSignal.waiting }
}
