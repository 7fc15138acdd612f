import CLMDB

extension StoreError {
    /// Maps an LMDB return code to the store's error, keeping LMDB's own text.
    static func lmdb(_ rc: Int32, _ operation: String) -> StoreError {
        let text = String(cString: mdb_strerror(rc))
        switch rc {
        case MDB_MAP_FULL:
            return StoreError(.full, "\(operation): \(text)", lmdbCode: rc)
        case MDB_BAD_VALSIZE:
            return StoreError(.tooLarge, "\(operation): \(text)", lmdbCode: rc)
        case MDB_CORRUPTED, MDB_PAGE_NOTFOUND, MDB_VERSION_MISMATCH, MDB_INVALID:
            return StoreError(.corrupt, "\(operation): \(text)", lmdbCode: rc)
        default:
            return StoreError(.lmdb, "\(operation): \(text)", lmdbCode: rc)
        }
    }

    var isMapFull: Bool { self.lmdbCode == MDB_MAP_FULL }
}

@inline(__always)
func check(_ rc: Int32, _ operation: @autoclosure () -> String) throws(StoreError) {
    if rc != MDB_SUCCESS {
        throw StoreError.lmdb(rc, operation())
    }
}
