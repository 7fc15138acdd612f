public import HeraldCore

/// The registry view in LMDB: records by key, and the applied log position in a meta table,
/// written in the same transaction as the records it covers.
public final class LMDBRegistryView: RegistryView {
    static let appliedKey = "applied-position"

    private let writer: StoreWriter
    private let environment: LMDBEnvironment
    private let records: Table<RegistrationKey, RegistryRecord>
    private let meta: Table<String, UInt64>
    private let appliedSignal: PositionSignal

    public init(writer: StoreWriter, records: LMDBDatabase, meta: LMDBDatabase) throws {
        self.writer = writer
        self.environment = writer.environment
        self.records = Table(records)
        self.meta = Table(meta)
        let metaTable = self.meta
        let applied = try writer.environment.read { txn in try metaTable.get(Self.appliedKey, in: txn) ?? 0 }
        self.appliedSignal = PositionSignal(position: applied)
    }

    public func appliedPosition() throws -> LogPosition {
        let meta = self.meta
        return try self.environment.read { txn in try meta.get(Self.appliedKey, in: txn) ?? 0 }
    }

    public func apply(_ entries: [LogEntry]) async throws {
        guard !entries.isEmpty else { return }
        let records = self.records
        let meta = self.meta
        let applied = try await self.writer.write { txn in
            var applied = try meta.get(Self.appliedKey, in: txn) ?? 0
            for entry in entries where entry.position > applied {
                let key = entry.command.key
                if case .store(let record) = entry.command.effect(on: try records.get(key, in: txn)) {
                    try records.put(record, for: key, in: txn)
                }
                applied = entry.position
            }
            try meta.put(applied, for: Self.appliedKey, in: txn)
            return applied
        }
        self.appliedSignal.advance(to: applied)
    }

    public func record(for key: RegistrationKey) throws -> RegistryRecord? {
        let records = self.records
        return try self.environment.read { txn in try records.get(key, in: txn) }
    }

    public func registrations(scope: RegistrationScope, subject: [UInt8]) throws -> [Registration] {
        let prefix = RegistrationKey.prefix(scope: scope, subject: subject)
        let database = self.records.database
        return try self.environment.read { txn in
            var found: [Registration] = []
            try txn.forEach(in: database, from: prefix) { key, value in
                guard key.starts(with: prefix) else { return false }
                if let registration = try RegistryRecord.decoded(from: value).registration {
                    found.append(registration)
                }
                return true
            }
            return found
        }
    }

    public func recordCount() throws -> Int {
        let records = self.records
        return try self.environment.read { txn in try records.count(in: txn) }
    }

    public func waitForApplied(beyond position: LogPosition) async throws -> LogPosition {
        try await self.appliedSignal.wait(beyond: position)
    }

    /// Every record in key order; for checks and snapshots, not for request paths.
    public func allRecords() throws -> [RegistrationKey: RegistryRecord] {
        let records = self.records
        return try self.environment.read { txn in
            var all: [RegistrationKey: RegistryRecord] = [:]
            try records.forEach(in: txn) { key, record in
                all[key] = record
                return true
            }
            return all
        }
    }
}
