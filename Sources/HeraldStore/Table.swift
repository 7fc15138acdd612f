/// A database whose keys and values have Herald's binary encodings.
public struct Table<Key: StoreKey, Value: StoreCodable>: Sendable {
    public let database: LMDBDatabase

    public init(_ database: LMDBDatabase) {
        self.database = database
    }

    public func get(_ key: Key, in txn: borrowing some LMDBReading & ~Copyable) throws -> Value? {
        try txn.withValue(in: self.database, key: key.storeKeyBytes) { bytes throws(StoreError) in
            try Value.decoded(from: bytes)
        }
    }

    public func put(_ value: Value, for key: Key, in txn: borrowing LMDBWriteTransaction) throws(StoreError) {
        try txn.put(value.encoded(), in: self.database, key: key.storeKeyBytes)
    }

    @discardableResult
    public func delete(_ key: Key, in txn: borrowing LMDBWriteTransaction) throws(StoreError) -> Bool {
        try txn.delete(in: self.database, key: key.storeKeyBytes)
    }

    public func count(in txn: borrowing some LMDBReading & ~Copyable) throws(StoreError) -> Int {
        try txn.count(of: self.database)
    }

    /// Visits entries in key order from the first key ≥ `start` until `body` returns `false`.
    public func forEach(
        from start: Key? = nil,
        in txn: borrowing some LMDBReading & ~Copyable,
        _ body: (Key, Value) throws -> Bool
    ) throws {
        try txn.forEach(in: self.database, from: start?.storeKeyBytes) { keyBytes, valueBytes in
            try body(try Key(storeKeyBytes: keyBytes), try Value.decoded(from: valueBytes))
        }
    }

    public func lastKey(in txn: borrowing some LMDBReading & ~Copyable) throws -> Key? {
        guard let bytes = try txn.lastKey(in: self.database) else { return nil }
        return try bytes.withUnsafeBytes { try Key(storeKeyBytes: $0) }
    }
}
