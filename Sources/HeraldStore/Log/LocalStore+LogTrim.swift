import HeraldCore

extension LocalStore {
    /// The log's base position: the entries through it were folded into the base records and
    /// deleted. 0 while nothing was trimmed.
    public func logBasePosition() throws -> LogPosition {
        let meta = Table<String, UInt64>(try self.environment.database(DatabaseName.meta))
        return try self.environment.read { txn in try meta.get(LMDBCommandLog.baseKey, in: txn) ?? 0 }
    }

    /// Folds up to `limit` of the local log's entries at or below `position` into the base
    /// records and deletes them, in one transaction: a crash leaves the log and base before or
    /// after, never between. The base is what those entries amount to (one record per key, like
    /// the view), so the store grows with registrations, not with their history, and
    /// `verify` still proves the view: the base, replayed forward by the log after it. Never
    /// past what the view applied, and never the newest entry (the log's head is its last key).
    /// Returns how many entries it folded: 0 once none is left.
    public func trimLog(through position: LogPosition, limit: Int) async throws -> Int {
        let applied = try self.view.appliedPosition()
        let head = try await self.log.head()
        let target = min(position, applied, head > 0 ? head - 1 : 0)
        guard target > 0, limit > 0 else { return 0 }
        let log = try self.environment.database(DatabaseName.log)
        let base = try self.environment.database(DatabaseName.logBase)
        let meta = Table<String, UInt64>(try self.environment.database(DatabaseName.meta))
        let cipher = self.cipher
        return try await self.writer.write { txn in
            let from = (try meta.get(LMDBCommandLog.baseKey, in: txn) ?? 0)
            var entries: [LogEntry] = []
            try txn.forEach(in: log, from: (from + 1).storeKeyBytes) { keyBytes, value in
                let key = try UInt64(storeKeyBytes: keyBytes)
                guard key <= target, entries.count < limit else { return false }
                entries.append(LogEntry(position: key, command: try RegistryCommand.decoded(from: try cipher.open(value, context: LMDBCommandLog.context(key)))))
                return true
            }
            guard !entries.isEmpty else { return 0 }
            let folded = try entries.apply(
                after: from,
                read: { key in try LMDBRegistryView.record(for: key, in: base, cipher: cipher, txn: txn) },
                write: { key, record in
                    let keyBytes = key.storeKeyBytes
                    try txn.put(try cipher.seal(record.storedValue(), context: LMDBRegistryView.context(keyBytes)), in: base, key: keyBytes)
                }
            )
            for entry in entries { try txn.delete(in: log, key: entry.position.storeKeyBytes) }
            try meta.put(folded, for: LMDBCommandLog.baseKey, in: txn)
            return entries.count
        }
    }

    /// The base records, for `verify`. Reads every one.
    func logBaseRecords() throws -> [RegistrationKey: RegistryRecord] {
        let base = try self.environment.database(DatabaseName.logBase)
        let cipher = self.cipher
        return try self.environment.read { txn in
            var all: [RegistrationKey: RegistryRecord] = [:]
            try txn.forEach(in: base) { keyBytes, value in
                let key = try RegistrationKey(storeKeyBytes: keyBytes)
                all[key] = try LMDBRegistryView.decode(key: key, keyBytes: keyBytes, value: value, cipher: cipher)
                return true
            }
            return all
        }
    }
}
