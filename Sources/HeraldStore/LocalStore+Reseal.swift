extension LocalStore {
    /// What `reseal()` rewrote.
    public struct ResealResult: Sendable, CustomStringConvertible {
        public var records = 0
        public var logEntries = 0

        public var description: String {
            "re-sealed \(self.records) records and \(self.logEntries) log entries"
        }
    }

    /// Rewrites every record and local log entry not sealed under the ring's first key (sealed
    /// under an older one, or written before encryption) under it, in transactions of `batch`.
    /// For a stopped node: `herald store rotate-key`.
    public func reseal(batch: Int = 10_000) async throws -> ResealResult {
        guard let cipher = self.cipher else { throw StoreError(.corrupt, "the store was opened without a key ring") }
        let records = try self.environment.database(DatabaseName.records)
        let log = try self.environment.database(DatabaseName.log)
        var result = ResealResult()
        result.records = try await self.reseal(records, batch: batch, cipher: cipher) { LMDBRegistryView.context($0) }
        result.logEntries = try await self.reseal(log, batch: batch, cipher: cipher) { key in
            LMDBCommandLog.context(try key.withUnsafeBytes { try UInt64(storeKeyBytes: $0) })
        }
        return result
    }

    private func reseal(
        _ database: LMDBDatabase,
        batch: Int,
        cipher: StoreCipher,
        context: @escaping @Sendable ([UInt8]) throws -> [UInt8]
    ) async throws -> Int {
        var count = 0
        var after: [UInt8]?
        while true {
            var stale: [(key: [UInt8], value: [UInt8])] = []
            var last: [UInt8]?
            try self.environment.read { txn in
                try txn.forEach(in: database, from: after) { key, value in
                    let keyBytes = Array(key)
                    if let after, keyBytes == after { return true }
                    last = keyBytes
                    if !cipher.isCurrent(value) { stale.append((keyBytes, Array(value))) }
                    return stale.count < batch
                }
            }
            if !stale.isEmpty {
                let resealing = stale
                try await self.writer.write { txn in
                    for (key, value) in resealing {
                        let plaintext = try cipher.open(value, context: try context(key))
                        try txn.put(cipher.seal(plaintext, context: try context(key)), in: database, key: key)
                    }
                }
                count += stale.count
            }
            guard let last, last != after, stale.count >= batch else { return count }
            after = last
        }
    }
}
