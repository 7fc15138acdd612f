import Synchronization

/// Ids of messages already accepted, each kept until its expiry, so a message delivered twice is
/// handled once (status-go's dedup of push requests, with a time limit status-go does not have).
///
/// Markers live in the node's LMDB, so a restart does not forget them. Expired markers are
/// deleted a bounded batch at a time as new ones are written, resuming where the last batch
/// stopped, so no write pays for a full scan.
public final class MessageMarkers: Sendable {
    /// A namespace per front door, so equal ids from two protocols never collide.
    public struct Namespace: RawRepresentable, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let statusPushRequest = Namespace(rawValue: 1)
    }

    static let sweepBatch = 256

    private let writer: StoreWriter
    private let database: LMDBDatabase
    private let sweepCursor = Mutex<[UInt8]?>(nil)

    public init(writer: StoreWriter, database: LMDBDatabase) {
        self.writer = writer
        self.database = database
    }

    /// Records `id` until `expiry` (UNIX seconds). Returns `false` when an unexpired marker for
    /// it already exists, in which case nothing changes.
    public func insert(_ id: [UInt8], in namespace: Namespace, expiry: UInt64, now: UInt64) async throws -> Bool {
        let key = [namespace.rawValue] + id
        let database = self.database
        let start = self.sweepCursor.withLock { $0 }
        let (inserted, next) = try await self.writer.write { txn in
            if let stored = try txn.value(in: database, key: key), Self.expiry(stored) > now {
                return (false, start)
            }
            try txn.put(Self.encode(expiry), in: database, key: key)
            return (true, try Self.sweep(from: start, now: now, database: database, txn: txn))
        }
        self.sweepCursor.withLock { $0 = next }
        return inserted
    }

    /// Whether an unexpired marker exists for `id`.
    public func contains(_ id: [UInt8], in namespace: Namespace, now: UInt64) throws -> Bool {
        let database = self.database
        return try self.writer.environment.read { txn in
            guard let stored = try txn.value(in: database, key: [namespace.rawValue] + id) else { return false }
            return Self.expiry(stored) > now
        }
    }

    /// Number of stored markers, expired ones not yet swept included.
    public func count() throws -> Int {
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

    /// A value that is not 8 bytes counts as expired, so a damaged marker cannot block a message.
    private static func expiry(_ bytes: [UInt8]) -> UInt64 {
        guard bytes.count == 8 else { return 0 }
        return bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
