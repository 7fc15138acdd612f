extension LocalStore {
    /// What `reseal()` rewrote.
    public struct ResealResult: Sendable, CustomStringConvertible {
        public var records = 0
        public var logEntries = 0
        public var markers = 0

        public var description: String {
            "re-sealed \(self.records) records, \(self.logEntries) log entries and \(self.markers) markers"
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
        result.records = try await self.reseal(records, batch: batch, cipher: cipher) { key, value in
            try Self.resealed(value, cipher: cipher, context: LMDBRegistryView.context(key))
        }
        // The trimmed log's base holds records too, sealed the same way.
        result.records += try await self.reseal(try self.environment.database(DatabaseName.logBase), batch: batch, cipher: cipher) { key, value in
            try Self.resealed(value, cipher: cipher, context: LMDBRegistryView.context(key))
        }
        result.logEntries = try await self.reseal(log, batch: batch, cipher: cipher) { key, value in
            try Self.resealed(value, cipher: cipher, context: LMDBCommandLog.context(try key.withUnsafeBytes { try UInt64(storeKeyBytes: $0) }))
        }
        let markers = try self.environment.database(DatabaseName.markers)
        // A marker is its expiry, then its value (sealed when not empty).
        result.markers = try await self.reseal(markers, batch: batch, cipher: cipher) { key, value in
            guard value.count > 8, let sealed = try Self.resealed(Array(value.dropFirst(8)), cipher: cipher, context: MessageMarkers.context(key)) else { return nil }
            return Array(value.prefix(8)) + sealed
        }
        return result
    }

    /// `value` sealed under the first key; `nil` when it already is.
    private static func resealed(_ value: [UInt8], cipher: StoreCipher, context: [UInt8]) throws -> [UInt8]? {
        guard !cipher.isCurrent(value) else { return nil }
        return try cipher.seal(try cipher.open(value, context: context), context: context)
    }

    /// Rewrites the values `transform` changes (`nil`: left alone), `batch` to a transaction.
    private func reseal(
        _ database: LMDBDatabase,
        batch: Int,
        cipher: StoreCipher,
        transform: @escaping @Sendable ([UInt8], [UInt8]) throws -> [UInt8]?
    ) async throws -> Int {
        var count = 0
        var after: [UInt8]?
        while true {
            var changed: [(key: [UInt8], value: [UInt8])] = []
            var last: [UInt8]?
            try self.environment.read { txn in
                try txn.forEach(in: database, from: after) { key, value in
                    let keyBytes = Array(key)
                    if let after, keyBytes == after { return true }
                    last = keyBytes
                    if let new = try transform(keyBytes, Array(value)) { changed.append((keyBytes, new)) }
                    return changed.count < batch
                }
            }
            if !changed.isEmpty {
                let writes = changed
                try await self.writer.write { txn in
                    for (key, value) in writes { try txn.put(value, in: database, key: key) }
                }
                count += changed.count
            }
            guard let last, last != after, changed.count >= batch else { return count }
            after = last
        }
    }
}
