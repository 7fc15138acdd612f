import CLMDB

/// Operations every transaction offers. Byte views handed to closures point into LMDB's map and
/// are valid only inside the closure.
public protocol LMDBReading: ~Copyable {
    var handle: OpaquePointer { get }
}

extension LMDBReading where Self: ~Copyable {
    /// Calls `body` with the stored bytes, or returns `nil` when the key is absent.
    public func withValue<T, E: Error>(
        in database: LMDBDatabase,
        key: [UInt8],
        _ body: (UnsafeRawBufferPointer) throws(E) -> T
    ) throws -> T? {
        var value = MDB_val()
        let rc = key.withUnsafeBytes { keyBytes in
            var keyValue = MDB_val(mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
            return mdb_get(self.handle, database.handle, &keyValue, &value)
        }
        if rc == MDB_NOTFOUND { return nil }
        try check(rc, "get from \(database.name)")
        return try body(UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size))
    }

    public func value(in database: LMDBDatabase, key: [UInt8]) throws -> [UInt8]? {
        try self.withValue(in: database, key: key) { Array($0) }
    }

    /// Number of entries in the database.
    public func count(of database: LMDBDatabase) throws(StoreError) -> Int {
        var stat = MDB_stat()
        try check(mdb_stat(self.handle, database.handle, &stat), "stat \(database.name)")
        return stat.ms_entries
    }

    /// Iterates entries in key order starting at the first key ≥ `start` (or the first key),
    /// until `body` returns `false`.
    public func forEach(
        in database: LMDBDatabase,
        from start: [UInt8]? = nil,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        var cursor: OpaquePointer?
        try check(mdb_cursor_open(self.handle, database.handle, &cursor), "open cursor on \(database.name)")
        defer { mdb_cursor_close(cursor) }
        var key = MDB_val()
        var value = MDB_val()
        var rc: Int32
        if let start {
            rc = start.withUnsafeBytes { startBytes in
                key = MDB_val(mv_size: startBytes.count, mv_data: UnsafeMutableRawPointer(mutating: startBytes.baseAddress))
                return mdb_cursor_get(cursor, &key, &value, MDB_SET_RANGE)
            }
        } else {
            rc = mdb_cursor_get(cursor, &key, &value, MDB_FIRST)
        }
        while rc == MDB_SUCCESS {
            let keyBytes = UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size)
            let valueBytes = UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
            guard try body(keyBytes, valueBytes) else { return }
            rc = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
        }
        if rc != MDB_NOTFOUND {
            try check(rc, "iterate \(database.name)")
        }
    }

    /// The last key in the database, copied, or `nil` when it is empty.
    public func lastKey(in database: LMDBDatabase) throws(StoreError) -> [UInt8]? {
        var cursor: OpaquePointer?
        try check(mdb_cursor_open(self.handle, database.handle, &cursor), "open cursor on \(database.name)")
        defer { mdb_cursor_close(cursor) }
        var key = MDB_val()
        var value = MDB_val()
        let rc = mdb_cursor_get(cursor, &key, &value, MDB_LAST)
        if rc == MDB_NOTFOUND { return nil }
        try check(rc, "last key of \(database.name)")
        return Array(UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size))
    }
}

/// A read-only snapshot. Many may be open at once, on any threads.
public struct LMDBReadTransaction: LMDBReading, ~Copyable {
    public let handle: OpaquePointer
}

/// The one write transaction of the environment. Only `StoreWriter` opens these, on its thread.
public struct LMDBWriteTransaction: LMDBReading, ~Copyable {
    public let handle: OpaquePointer

    public func put(_ value: [UInt8], in database: LMDBDatabase, key: [UInt8]) throws(StoreError) {
        let rc = key.withUnsafeBytes { keyBytes in
            value.withUnsafeBytes { valueBytes in
                var keyValue = MDB_val(mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
                var dataValue = MDB_val(mv_size: valueBytes.count, mv_data: UnsafeMutableRawPointer(mutating: valueBytes.baseAddress))
                return mdb_put(self.handle, database.handle, &keyValue, &dataValue, 0)
            }
        }
        try check(rc, "put into \(database.name)")
    }

    /// Removes the key; returns whether it was there.
    @discardableResult
    public func delete(in database: LMDBDatabase, key: [UInt8]) throws(StoreError) -> Bool {
        let rc = key.withUnsafeBytes { keyBytes in
            var keyValue = MDB_val(mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
            return mdb_del(self.handle, database.handle, &keyValue, nil)
        }
        if rc == MDB_NOTFOUND { return false }
        try check(rc, "delete from \(database.name)")
        return true
    }
}
