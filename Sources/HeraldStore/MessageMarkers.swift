/// Ids of messages already accepted, each kept until its expiry, so a message delivered twice is
/// handled once, and what a front door keeps beside them (an answer given), each until it expires.
///
/// Markers live in the node's LMDB, so a restart does not forget them. Inserts are
/// group-committed like log appends: while one transaction is written and synced, further
/// inserts queue and share the next one, so a busy node pays one fsync per batch, not per
/// message. Expired markers are deleted a bounded batch at a time as new ones are written,
/// resuming where the last batch stopped, so no write pays for a full scan.
public actor MessageMarkers {
    /// A front door's key space among the markers, so equal ids from two protocols never
    /// collide, with how long its markers are kept. Each door declares its own in its folder
    /// (`StoreSpaces`); the number is what the store keeps.
    public struct Namespace: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt8
        public let name: String
        /// How long `insert(_:in:now:value:)` keeps a marker.
        public let ttl: Duration

        public init(_ rawValue: UInt8, name: String, ttl: Duration) {
            self.rawValue = rawValue
            self.name = name
            self.ttl = ttl
        }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.rawValue == rhs.rawValue
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(self.rawValue)
        }

        public var description: String { self.name }

        /// `now` plus the namespace's TTL (at least a second), in UNIX seconds, saturating.
        public func expiry(from now: UInt64) -> UInt64 {
            let seconds = UInt64(clamping: max(self.ttl.components.seconds, 1))
            let (sum, overflow) = now.addingReportingOverflow(seconds)
            return overflow ? .max : sum
        }
    }

    static let sweepBatch = 256
    /// LMDB's default key limit, the namespace byte included.
    static let maximumKeySize = 511

    private struct Pending {
        let key: [UInt8]
        let expiry: UInt64
        let value: [UInt8]
        let now: UInt64
        let continuation: CheckedContinuation<Bool, any Error>
    }

    private let writer: StoreWriter
    private let database: LMDBDatabase
    /// Seals the values kept with markers (a remembered answer may name tokens).
    private let cipher: StoreCipher?
    private var sweepCursor: [UInt8]?
    private var pending: [Pending] = []
    private var isFlushing = false

    public init(writer: StoreWriter, database: LMDBDatabase, cipher: StoreCipher? = nil) {
        self.cipher = cipher
        self.writer = writer
        self.database = database
    }

    /// Records `id` until `expiry` (UNIX seconds), with `value` kept beside it. Returns `false`
    /// when an unexpired marker for it already exists (or an insert of the same id went first),
    /// in which case nothing changes.
    public func insert(_ id: [UInt8], in namespace: Namespace, expiry: UInt64, now: UInt64, value: [UInt8] = []) async throws -> Bool {
        // Refused here, alone: in the batch, LMDB's refusal would fail every insert sharing it.
        guard id.count < Self.maximumKeySize else {
            throw StoreError(.tooLarge, "a marker id of \(id.count) bytes is longer than LMDB keys may be (\(Self.maximumKeySize - 1))")
        }
        return try await withCheckedThrowingContinuation { continuation in
            self.pending.append(Pending(key: [namespace.rawValue] + id, expiry: expiry, value: value, now: now, continuation: continuation))
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
            let batch = self.pending
            self.pending = []
            let database = self.database
            let cipher = self.cipher
            let start = self.sweepCursor
            let now = batch.map(\.now).max() ?? 0
            do {
                let (inserted, next) = try await self.writer.write { txn in
                    // A transaction sees its own puts, so a repeated id within the batch is
                    // refused like one stored earlier.
                    var inserted: [Bool] = []
                    for request in batch {
                        if let stored = try txn.value(in: database, key: request.key), Self.expiry(stored) > request.now {
                            inserted.append(false)
                        } else {
                            try txn.put(try Self.stored(request.value, expiry: request.expiry, key: request.key, cipher: cipher), in: database, key: request.key)
                            inserted.append(true)
                        }
                    }
                    return (inserted, try Self.sweep(from: start, now: now, database: database, txn: txn))
                }
                self.sweepCursor = next
                for (request, result) in zip(batch, inserted) { request.continuation.resume(returning: result) }
            } catch {
                for request in batch { request.continuation.resume(throwing: error) }
            }
        }
        self.isFlushing = false
    }

    /// Records `id` for the namespace's TTL; see `insert(_:in:expiry:now:value:)`.
    public func insert(_ id: [UInt8], in namespace: Namespace, now: UInt64, value: [UInt8] = []) async throws -> Bool {
        try await self.insert(id, in: namespace, expiry: namespace.expiry(from: now), now: now, value: value)
    }

    /// Whether an unexpired marker exists for `id`.
    public nonisolated func contains(_ id: [UInt8], in namespace: Namespace, now: UInt64) throws -> Bool {
        try self.value(of: id, in: namespace, now: now) != nil
    }

    /// The value kept with `id`'s unexpired marker; `nil` when there is none.
    public nonisolated func value(of id: [UInt8], in namespace: Namespace, now: UInt64) throws -> [UInt8]? {
        let database = self.database
        let cipher = self.cipher
        let key = [namespace.rawValue] + id
        return try self.writer.environment.read { txn in
            guard let stored = try txn.value(in: database, key: key), Self.expiry(stored) > now else { return nil }
            return try cipher.open(stored.dropFirst(8), context: Self.context(key))
        }
    }

    /// Every unexpired marker of `namespace`: its id and value. Reads the whole namespace: for
    /// small ones read at start (broadcasts to resume), never for dedup namespaces.
    public nonisolated func entries(in namespace: Namespace, now: UInt64) throws -> [(id: [UInt8], value: [UInt8])] {
        let database = self.database
        let cipher = self.cipher
        return try self.writer.environment.read { txn in
            var found: [(id: [UInt8], value: [UInt8])] = []
            try txn.forEach(in: database, from: [namespace.rawValue]) { key, stored in
                guard key.first == namespace.rawValue else { return false }
                let bytes = Array(stored)
                if Self.expiry(bytes) > now {
                    found.append((Array(key.dropFirst()), try cipher.open(bytes.dropFirst(8), context: Self.context(Array(key)))))
                }
                return true
            }
            return found
        }
    }

    /// Replaces `id`'s marker, whatever it held, with `value` until `expiry`.
    public func replace(_ id: [UInt8], in namespace: Namespace, expiry: UInt64, value: [UInt8]) async throws {
        let database = self.database
        let key = [namespace.rawValue] + id
        let stored = try Self.stored(value, expiry: expiry, key: key, cipher: self.cipher)
        try await self.writer.write { txn in try txn.put(stored, in: database, key: key) }
    }

    /// The expiry, then the value sealed under the marker's key (an empty value stays empty).
    static func stored(_ value: [UInt8], expiry: UInt64, key: [UInt8], cipher: StoreCipher?) throws(StoreError) -> [UInt8] {
        Self.encode(expiry) + (value.isEmpty ? [] : try cipher.seal(value, context: Self.context(key)))
    }

    static func context(_ key: [UInt8]) -> [UInt8] {
        Array("marker:".utf8) + key
    }

    /// Deletes `id`'s marker, so the id counts as never seen.
    public func remove(_ id: [UInt8], in namespace: Namespace) async throws {
        let database = self.database
        let key = [namespace.rawValue] + id
        try await self.writer.write { txn in _ = try txn.delete(in: database, key: key) }
    }

    /// Number of stored markers, expired ones not yet swept included.
    public nonisolated func count() throws -> Int {
        let database = self.database
        return try self.writer.environment.read { txn in try txn.count(of: database) }
    }

    /// Deletes the expired markers among the next `sweepBatch` keys from `start`; returns where
    /// the next sweep starts (`nil`: from the beginning).
    private static func sweep(
        from start: [UInt8]?,
        now: UInt64,
        database: LMDBDatabase,
        txn: borrowing LMDBWriteTransaction
    ) throws -> [UInt8]? {
        var expired: [[UInt8]] = []
        var visited = 0
        var next: [UInt8]?
        try txn.forEach(in: database, from: start) { key, value in
            if visited == Self.sweepBatch {
                next = Array(key)
                return false
            }
            visited += 1
            if Self.expiry(Array(value)) <= now { expired.append(Array(key)) }
            return true
        }
        for key in expired { try txn.delete(in: database, key: key) }
        return next
    }

    private static func encode(_ expiry: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: expiry >> (8 * (7 - $0))) }
    }

    /// A value shorter than 8 bytes counts as expired, so a damaged marker cannot block a
    /// message.
    private static func expiry(_ bytes: [UInt8]) -> UInt64 {
        guard bytes.count >= 8 else { return 0 }
        return bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
