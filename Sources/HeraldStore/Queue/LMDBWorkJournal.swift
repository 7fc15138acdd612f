public import HeraldCore
public import Logging
import Synchronization

/// The node's journal of acknowledged work (`AcceptedWorkJournal`), in an LMDB environment of
/// its own inside the store directory (`<store.path>/queue`): a snapshot of the view neither
/// carries one node's queue to another nor replaces it, and the directory moved to another host
/// carries its queue with it. Entries are keyed by a rising id and sealed with the store's key
/// ring, bound to their id.
///
/// Records are group-committed like log appends: while one transaction is written and synced,
/// further records and ends queue up and share the next, so a busy node pays one fsync per
/// batch. Ends are written with the next batch and never awaited.
public final class LMDBWorkJournal: AcceptedWorkJournal {
    /// Most records and ends written in one transaction.
    static let maximumBatch = 4096
    static let databaseName = "accepted"
    /// The directory inside the store directory.
    public static let directoryName = "queue"

    private struct Record {
        var entries: [AcceptedWork]
        var completion: @Sendable ([UInt64]?) -> Void
    }

    private struct State {
        var records: [Record] = []
        var ends: [UInt64] = []
        var isFlushing = false
        var isClosed = false
        var nextID: UInt64
        /// `close()` waiting for a flush under way to end.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    public let environment: LMDBEnvironment
    private let writer: StoreWriter
    private let database: LMDBDatabase
    private let cipher: StoreCipher?
    private let logger: Logger
    /// Ids below it were recorded by an earlier process: what a restart resumes.
    private let firstIDOfThisRun: UInt64
    private let state: Mutex<State>

    /// Opens (creating if needed) the journal in `storePath/queue`.
    public convenience init(storePath: String, durable: Bool = true, cipher: StoreCipher?, logger: Logger) throws {
        try self.init(path: storePath + "/" + Self.directoryName, durable: durable, cipher: cipher, logger: logger)
    }

    public init(path: String, durable: Bool = true, cipher: StoreCipher?, logger: Logger) throws {
        // A queue holds what is in flight, a few thousand pushes: a small map, grown on demand.
        let configuration = LMDBEnvironment.Configuration(mapSize: 64 << 20, maxMapSize: 1 << 36, maxReaders: 64, durable: durable)
        let environment = try LMDBEnvironment(path: path, databases: [Self.databaseName], configuration: configuration)
        self.environment = environment
        self.writer = StoreWriter(environment: environment)
        self.database = try environment.database(Self.databaseName)
        self.cipher = cipher
        self.logger = logger
        let database = self.database
        let last = try environment.read { txn in try txn.lastKey(in: database).map { key in try key.withUnsafeBytes { try UInt64(storeKeyBytes: $0) } } } ?? 0
        self.firstIDOfThisRun = last + 1
        self.state = Mutex(State(nextID: last + 1))
    }

    public func record(_ entries: [AcceptedWork], completion: @escaping @Sendable ([UInt64]?) -> Void) {
        guard !entries.isEmpty else { return completion([]) }
        let start = self.state.withLock { state -> Bool? in
            guard !state.isClosed else { return nil }
            state.records.append(Record(entries: entries, completion: completion))
            return self.claimFlush(&state)
        }
        switch start {
        case nil: completion(nil)
        case true?: self.startFlushing()
        case false?: break
        }
    }

    public func finished(_ ids: [UInt64]) {
        guard !ids.isEmpty else { return }
        let start = self.state.withLock { state -> Bool in
            guard !state.isClosed else { return false }
            state.ends += ids
            return self.claimFlush(&state)
        }
        if start { self.startFlushing() }
    }

    private func claimFlush(_ state: inout State) -> Bool {
        guard !state.isFlushing else { return false }
        state.isFlushing = true
        return true
    }

    private func startFlushing() {
        // Runs while records or ends wait and ends when none do: an unstructured task here
        // cannot outlive the work it serves.
        Task { await self.flush() }
    }

    private func flush() async {
        while let batch = self.nextBatch() {
            await self.write(batch)
        }
    }

    private struct Batch {
        var records: [Record]
        var firstID: UInt64
        var ends: [UInt64]
    }

    /// Takes what waits, up to a batch, or ends the flush when nothing does.
    private func nextBatch() -> Batch? {
        let (batch, waiters) = self.state.withLock { state -> (Batch?, [CheckedContinuation<Void, Never>]) in
            guard !state.records.isEmpty || !state.ends.isEmpty else {
                state.isFlushing = false
                defer { state.idleWaiters = [] }
                return (nil, state.idleWaiters)
            }
            var records: [Record] = []
            var count = 0
            while let next = state.records.first, records.isEmpty || count + next.entries.count <= Self.maximumBatch {
                records.append(state.records.removeFirst())
                count += next.entries.count
            }
            let ends = Array(state.ends.prefix(Self.maximumBatch))
            state.ends.removeFirst(ends.count)
            let firstID = state.nextID
            state.nextID += UInt64(count)
            return (Batch(records: records, firstID: firstID, ends: ends), [])
        }
        for waiter in waiters { waiter.resume() }
        return batch
    }

    private func write(_ batch: Batch) async {
        var values: [(key: [UInt8], value: [UInt8])] = []
        var written: [(record: Record, ids: [UInt64])] = []
        var unsealed: [Record] = []
        var id = batch.firstID
        for record in batch.records {
            let ids = Array(id..<(id + UInt64(record.entries.count)))
            id += UInt64(record.entries.count)
            do {
                values += try zip(ids, record.entries).map { entryID, entry in
                    (entryID.storeKeyBytes, try self.cipher.seal(entry.encoded(), context: Self.context(entryID)))
                }
                written.append((record, ids))
            } catch {
                // Only this caller's work is refused; its ids stay unused.
                unsealed.append(record)
            }
        }
        for record in unsealed { record.completion(nil) }
        let database = self.database
        let ends = batch.ends
        do {
            try await self.writer.write { txn in
                for (key, value) in values { try txn.put(value, in: database, key: key) }
                for end in ends { _ = try txn.delete(in: database, key: end.storeKeyBytes) }
            }
        } catch {
            self.logger.error("the queue journal could not write", metadata: ["error": "\(error)", "records": "\(values.count)", "ends": "\(ends.count)"])
            for (record, _) in written { record.completion(nil) }
            // Ends are tried again with the next batch; forgetting them would redeliver after a
            // restart. Once closing, nothing more is written.
            self.state.withLock { state in
                if !state.isClosed { state.ends.insert(contentsOf: ends, at: 0) }
            }
            return
        }
        for (record, ids) in written { record.completion(ids) }
    }

    /// What an entry is sealed with: its id, so entries cannot be swapped.
    static func context(_ id: UInt64) -> [UInt8] {
        Array("queue:".utf8) + id.storeKeyBytes
    }

    public func unfinished(owner: String) throws -> [JournaledWork] {
        try self.unfinished().filter { $0.work.owner == owner }
    }

    public func unfinishedOwners() throws -> Set<String> {
        Set(try self.unfinished().map(\.work.owner))
    }

    /// Every entry an earlier process left. One that cannot be opened (sealed with a key no
    /// longer in the ring, damaged) is logged and left where it is.
    private func unfinished() throws -> [JournaledWork] {
        let database = self.database
        let cipher = self.cipher
        let limit = self.firstIDOfThisRun
        var unreadable = 0
        let found = try self.environment.read { txn in
            var found: [JournaledWork] = []
            try txn.forEach(in: database) { keyBytes, value in
                let id = try UInt64(storeKeyBytes: keyBytes)
                guard id < limit else { return false }
                do {
                    let work = try AcceptedWork.decoded(from: try cipher.open(value, context: Self.context(id)))
                    found.append(JournaledWork(id: id, work: work))
                } catch {
                    unreadable += 1
                }
                return true
            }
            return found
        }
        if unreadable > 0 {
            self.logger.error("queued work that cannot be read is left in the journal", metadata: ["entries": "\(unreadable)", "journal": "\(self.environment.path)"])
        }
        return found
    }

    /// Entries recorded and not ended, and when the oldest was accepted (UNIX milliseconds).
    public func depth() throws -> (entries: Int, oldestAcceptedAt: Int64?) {
        let database = self.database
        let cipher = self.cipher
        return try self.environment.read { txn in
            let count = try txn.count(of: database)
            var oldest: Int64?
            try txn.forEach(in: database) { keyBytes, value in
                let id = try UInt64(storeKeyBytes: keyBytes)
                oldest = try? AcceptedWork.decoded(from: try cipher.open(value, context: Self.context(id))).acceptedAt
                return false
            }
            return (count, oldest)
        }
    }

    /// Rewrites every entry not sealed under the ring's first key under it (`herald store
    /// rotate-key`, on a stopped node); how many it rewrote. A queue holds what is in flight,
    /// so one transaction does.
    public func reseal() async throws -> Int {
        guard let cipher = self.cipher else { throw StoreError(.corrupt, "the journal was opened without a key ring") }
        let database = self.database
        let changed = try self.environment.read { txn in
            var changed: [(key: [UInt8], value: [UInt8])] = []
            try txn.forEach(in: database) { keyBytes, value in
                let id = try UInt64(storeKeyBytes: keyBytes)
                let sealed = Array(value)
                guard !cipher.isCurrent(sealed) else { return true }
                let context = Self.context(id)
                changed.append((id.storeKeyBytes, try cipher.seal(try cipher.open(sealed, context: context), context: context)))
                return true
            }
            return changed
        }
        try await self.writer.write { txn in
            for (key, value) in changed { try txn.put(value, in: database, key: key) }
        }
        return changed.count
    }

    /// Refuses further work, writes what waits (the last ends too, so a clean stop resumes
    /// nothing twice) and closes the environment. Not cut short by cancellation: a flush under
    /// way is waited for, so the writer never closes beneath it.
    public func close() async throws {
        enum Step {
            case flush, wait, done
        }
        // Each round writes a batch or waits for one: bounded by what was queued before closing.
        for _ in 0..<100_000 {
            let step = self.state.withLock { state -> Step in
                state.isClosed = true
                if state.isFlushing { return .wait }
                if state.records.isEmpty, state.ends.isEmpty { return .done }
                state.isFlushing = true
                return .flush
            }
            switch step {
            case .flush:
                await self.flush()
            case .wait:
                await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                    let idle = self.state.withLock { state -> Bool in
                        guard state.isFlushing else { return true }
                        state.idleWaiters.append(waiter)
                        return false
                    }
                    if idle { waiter.resume() }
                }
            case .done:
                try await self.writer.close()
                return
            }
        }
        try await self.writer.close()
    }
}
