public import HeraldCore

/// The registry view in LMDB: records by key, and the applied log position in a meta table,
/// written in the same transaction as the records it covers.
public final class LMDBRegistryView: RegistryView {
    static let appliedKey = "applied-position"
    static let sourceKey = "log-source"
    /// Set once the token index covers every record (stores from before it are indexed at open).
    static let tokenIndexKey = "token-index"

    private let writer: StoreWriter
    private let environment: LMDBEnvironment
    private let records: LMDBDatabase
    private let meta: Table<String, UInt64>
    private let appliedSignal: PositionSignal
    private let observers = ApplyObservers()
    private let sourceClaimed = PositionSignal(position: 0)
    private let localLog: LMDBDatabase?
    private let tokens: LMDBDatabase?
    /// Seals records at rest; `nil` keeps them as they are (tools and tests of other layers).
    private let cipher: StoreCipher?

    /// `localLog` is the store's own log database: whether it holds entries tells which log built
    /// a view from before sources were recorded.
    /// a view from before sources were recorded. `tokens` holds the token index.
    public init(
        writer: StoreWriter,
        records: LMDBDatabase,
        meta: LMDBDatabase,
        localLog: LMDBDatabase? = nil,
        tokens: LMDBDatabase? = nil,
        cipher: StoreCipher? = nil
    ) throws {
        self.cipher = cipher
        self.localLog = localLog
        self.tokens = tokens
        self.writer = writer
        self.environment = writer.environment
        self.records = records
        self.meta = Table(meta)
        let metaTable = self.meta
        let applied = try writer.environment.read { txn in try metaTable.get(Self.appliedKey, in: txn) ?? 0 }
        self.appliedSignal = PositionSignal(position: applied)
        if let tokens { try Self.buildTokenIndex(environment: writer.environment, records: records, meta: metaTable, tokens: tokens, cipher: cipher) }
    }

    /// Indexes every live registration once, for a store written before the index existed. At
    /// open, before anything else writes.
    private static func buildTokenIndex(environment: LMDBEnvironment, records: LMDBDatabase, meta: Table<String, UInt64>, tokens: LMDBDatabase, cipher: StoreCipher?) throws {
        guard try environment.read({ txn in try meta.get(Self.tokenIndexKey, in: txn) }) != 1 else { return }
        try environment.withWriteTransaction { txn in
            var entries: [[UInt8]] = []
            try txn.forEach(in: records) { keyBytes, value in
                let key = try RegistrationKey(storeKeyBytes: keyBytes)
                if let registration = try Self.decode(key: key, keyBytes: keyBytes, value: value, cipher: cipher).registration, registration.enabled {
                    entries.append(TokenIndex.entry(registration))
                }
                return true
            }
            for entry in entries { try txn.put([1], in: tokens, key: entry) }
            try meta.put(1, for: Self.tokenIndexKey, in: txn)
        }
    }

    public func appliedPosition() throws -> LogPosition {
        let meta = self.meta
        return try self.environment.read { txn in try meta.get(Self.appliedKey, in: txn) ?? 0 }
    }

    public func apply(_ entries: [LogEntry]) async throws {
        guard !entries.isEmpty else { return }
        let records = self.records
        let meta = self.meta
        let tokens = self.tokens
        let cipher = self.cipher
        let applied = try await self.writer.write { txn in
            let applied = try entries.apply(
                after: try meta.get(Self.appliedKey, in: txn) ?? 0,
                read: { key in try Self.record(for: key, in: records, cipher: cipher, txn: txn) },
                write: { key, record in
                    if let tokens {
                        let old = try Self.record(for: key, in: records, cipher: cipher, txn: txn)?.registration
                        try TokenIndex.update(from: old, to: record.registration, in: tokens, txn: txn)
                    }
                    let keyBytes = key.storeKeyBytes
                    try txn.put(try cipher.seal(record.storedValue(), context: Self.context(keyBytes)), in: records, key: keyBytes)
                }
            )
            try meta.put(applied, for: Self.appliedKey, in: txn)
            return applied
        }
        self.observers.notify(entries)
        self.appliedSignal.advance(to: applied)
    }

    public func onApplied(_ observer: @escaping @Sendable ([LogEntry]) -> Void) {
        self.observers.add(observer)
    }

    public func record(for key: RegistrationKey) throws -> RegistryRecord? {
        let records = self.records
        let cipher = self.cipher
        return try self.environment.read { txn in try Self.record(for: key, in: records, cipher: cipher, txn: txn) }
    }

    static func record(
        for key: RegistrationKey,
        in records: LMDBDatabase,
        cipher: StoreCipher?,
        txn: borrowing some LMDBReading & ~Copyable
    ) throws -> RegistryRecord? {
        let keyBytes = key.storeKeyBytes
        return try txn.withValue(in: records, key: keyBytes) { bytes throws(StoreError) in
            try Self.decode(key: key, keyBytes: keyBytes, value: bytes, cipher: cipher)
        }
    }

    /// What a record is sealed with: its key, so a value copied under another key does not open.
    static func context(_ keyBytes: some Collection<UInt8>) -> [UInt8] {
        Array("record:".utf8) + keyBytes
    }

    static func decode(key: RegistrationKey, keyBytes: some Collection<UInt8>, value: UnsafeRawBufferPointer, cipher: StoreCipher?) throws(StoreError) -> RegistryRecord {
        guard let cipher, value.first == StoreCipher.marker else { return try RegistryRecord(key: key, storedValue: value) }
        let plaintext = try cipher.open(value, context: Self.context(keyBytes))
        let decoded = plaintext.withUnsafeBytes { bytes in Result { () throws(StoreError) in try RegistryRecord(key: key, storedValue: bytes) } }
        return try decoded.get()
    }

    public func registrations(scope: RegistrationScope, subject: [UInt8]) throws -> [Registration] {
        let prefix = RegistrationKey.prefix(scope: scope, subject: subject)
        let database = self.records
        let cipher = self.cipher
        return try self.environment.read { txn in
            var found: [Registration] = []
            try txn.forEach(in: database, from: prefix) { keyBytes, value in
                guard keyBytes.starts(with: prefix) else { return false }
                let key = try RegistrationKey(storeKeyBytes: keyBytes)
                if let registration = try Self.decode(key: key, keyBytes: keyBytes, value: value, cipher: cipher).registration {
                    found.append(registration)
                }
                return true
            }
            return found
        }
    }

    public func forEachSubject(scope: RegistrationScope, _ body: ([UInt8]) throws -> Void) throws {
        let database = self.records
        let cipher = self.cipher
        try self.environment.read { txn in
            var last: [UInt8]?
            try txn.forEach(in: database, from: [scope.rawValue]) { keyBytes, value in
                guard keyBytes.first == scope.rawValue else { return false }
                let key = try RegistrationKey(storeKeyBytes: keyBytes)
                guard key.subject != last, try Self.decode(key: key, keyBytes: keyBytes, value: value, cipher: cipher).registration != nil else { return true }
                last = key.subject
                try body(key.subject)
                return true
            }
        }
    }

    public func keys(holdingToken token: String, app: String?, scope: RegistrationScope) throws -> [RegistrationKey] {
        guard let tokens = self.tokens else {
            throw StoreError(.lmdb, "this view was opened without its token index")
        }
        let prefix = TokenIndex.prefix(scope: scope, app: app, token: token)
        return try self.environment.read { txn in
            var keys: [RegistrationKey] = []
            try txn.forEach(in: tokens, from: prefix) { entry, _ in
                guard entry.starts(with: prefix) else { return false }
                keys.append(try RegistrationKey(storeKeyBytes: UnsafeRawBufferPointer(rebasing: entry[prefix.count...])))
                return true
            }
            return keys
        }
    }

    public func registrations(keyPrefix: [UInt8], after cursor: [UInt8]?, limit: Int) throws -> (registrations: [Registration], next: [UInt8]?) {
        let database = self.records
        let cipher = self.cipher
        return try self.environment.read { txn in
            var found: [Registration] = []
            var last: [UInt8]?
            try txn.forEach(in: database, from: cursor ?? keyPrefix) { keyBytes, value in
                guard keyBytes.starts(with: keyPrefix) else { return false }
                if let cursor, keyBytes.elementsEqual(cursor) { return true }
                guard found.count < limit else { return false }
                let key = try RegistrationKey(storeKeyBytes: keyBytes)
                last = Array(keyBytes)
                if let registration = try Self.decode(key: key, keyBytes: keyBytes, value: value, cipher: cipher).registration {
                    found.append(registration)
                }
                return true
            }
            return (found, last)
        }
    }

    public func recordCount() throws -> Int {
        let records = self.records
        return try self.environment.read { txn in try txn.count(of: records) }
    }

    public func waitForApplied(beyond position: LogPosition) async throws -> LogPosition {
        try await self.appliedSignal.wait(beyond: position)
    }

    /// The log the view was built from, as `claimSource` recorded it; `nil` before any claim.
    public func source() throws -> String? {
        let meta = self.meta
        let key = Self.sourceKey.storeKeyBytes
        return try self.environment.read { txn in
            try txn.value(in: meta.database, key: key).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    public func claimSource(_ source: String) async throws {
        let meta = self.meta
        let key = Self.sourceKey.storeKeyBytes
        let claimed = Array(source.utf8)
        let localLog = self.localLog
        try await self.writer.write { txn in
            let stored = try txn.value(in: meta.database, key: key)
            let applied = try meta.get(Self.appliedKey, in: txn) ?? 0
            if let stored, stored != claimed, applied > 0 {
                throw StoreError(
                    .wrongLog,
                    "this store's view was built from \(Self.describe(String(decoding: stored, as: UTF8.self))), not \(Self.describe(source)): its positions mean nothing there. Start with store.path pointing at an empty directory (the node fetches everything from the log), or with the configuration that built it"
                )
            }
            if stored == nil, applied > 0 {
                // A store from before sources were recorded: entries in its own log mean it
                // followed that log; none, that it followed etcd's.
                let builtLocally = try localLog.map { try txn.count(of: $0) > 0 } ?? true
                guard builtLocally == (source == "local") else {
                    throw StoreError(
                        .wrongLog,
                        "this store's view was built from \(builtLocally ? "the local log" : "an etcd log") (applied position \(applied)), not \(Self.describe(source)). Start with store.path pointing at an empty directory: the node fetches everything from the log"
                    )
                }
            }
            // An empty view may change logs: it has applied nothing.
            if stored != claimed { try txn.put(claimed, in: meta.database, key: key) }
        }
        self.sourceClaimed.advance(to: 1)
    }

    private static func describe(_ source: String) -> String {
        source == "local" ? "the local log" : "the etcd log \(source)"
    }

    public func waitForSourceClaim() async throws {
        _ = try await self.sourceClaimed.wait(beyond: 0)
    }

    public func digest() throws -> RegistryDigest {
        let records = self.records
        let cipher = self.cipher
        let meta = self.meta
        return try self.environment.read { txn in
            var builder = RegistryDigest.Builder()
            try txn.forEach(in: records) { key, value in
                // Over the plaintext: nonces differ between nodes, records must not.
                builder.add(key: key, value: try cipher.open(value, context: Self.context(key)))
                return true
            }
            return builder.finish(appliedPosition: try meta.get(Self.appliedKey, in: txn) ?? 0)
        }
    }

    /// Every record in key order; for checks and snapshots, not for request paths.
    public func allRecords() throws -> [RegistrationKey: RegistryRecord] {
        let records = self.records
        let cipher = self.cipher
        return try self.environment.read { txn in
            var all: [RegistrationKey: RegistryRecord] = [:]
            try txn.forEach(in: records) { keyBytes, value in
                let key = try RegistrationKey(storeKeyBytes: keyBytes)
                all[key] = try Self.decode(key: key, keyBytes: keyBytes, value: value, cipher: cipher)
                return true
            }
            return all
        }
    }
}
