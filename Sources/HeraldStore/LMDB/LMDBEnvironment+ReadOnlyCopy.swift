import CLMDB

extension LMDBEnvironment {
    /// Writes a compacted copy of the environment in `path` into `directory` (existing, empty)
    /// without taking the store's directory lock: LMDB lets another process read while the node
    /// runs, and the copy is one read transaction, so the node's writers never wait for it.
    public static func compactCopy(ofStoreAt path: String, to directory: String) throws(StoreError) {
        var env: OpaquePointer?
        try check(mdb_env_create(&env), "create environment")
        guard let env else { throw StoreError(.lmdb, "mdb_env_create returned no environment") }
        defer { mdb_env_close(env) }
        // The live node may have grown the map beyond what this process mapped: LMDB then
        // refuses a transaction with MDB_MAP_RESIZED until the map is set again.
        try check(mdb_env_set_maxdbs(env, 16), "set max databases")
        try check(mdb_env_open(env, path, UInt32(MDB_RDONLY | MDB_NOTLS), 0o600), "open the store at \(path) to copy it")
        for _ in 0..<3 {
            let rc = mdb_env_copy2(env, directory, UInt32(MDB_CP_COMPACT))
            if rc == MDB_MAP_RESIZED {
                try check(mdb_env_set_mapsize(env, 0), "adopt the store's grown map")
                continue
            }
            try check(rc, "write a compacted copy of the store at \(path)")
            return
        }
        throw StoreError(.lmdb, "the store at \(path) kept growing while it was copied; try again")
    }
}
