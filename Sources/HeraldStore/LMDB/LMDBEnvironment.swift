import CLMDB
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An open LMDB environment: one directory, a memory map, and the named databases Herald uses.
///
/// Reads run on the caller's thread, concurrently. Writes go through `withWriteTransaction`, which
/// only `StoreWriter` calls, from its single thread, so LMDB's one-writer rule holds by construction.
public final class LMDBEnvironment: @unchecked Sendable {  // Safe: state is locked or atomic, see below.
    // @unchecked: `handle` is an MDB_env*, which LMDB allows to be shared between threads. The
    // mutable state is `currentMapSize` (a Mutex) and `isClosed` (an Atomic); the map is resized
    // and the environment closed only under the exclusive side of `gate`, when no call of this
    // process is inside LMDB, and every call that touches the map holds the shared side.

    public struct Configuration: Sendable, Hashable {
        /// Map size to open with, in bytes. The map is virtual address space, not memory.
        public var mapSize: Int
        /// The map doubles on `MDB_MAP_FULL` up to this size; beyond it writes fail with `.full`.
        public var maxMapSize: Int
        /// Concurrent read transactions allowed.
        public var maxReaders: Int
        /// `false` skips the fsync on commit (survives a process crash, not a power loss).
        public var durable: Bool

        public init(mapSize: Int = 1 << 30, maxMapSize: Int = 1 << 38, maxReaders: Int = 512, durable: Bool = true) {
            self.mapSize = mapSize
            self.maxMapSize = max(maxMapSize, mapSize)
            self.maxReaders = maxReaders
            self.durable = durable
        }
    }

    public let path: String
    public let configuration: Configuration
    let handle: OpaquePointer
    private let gate = ResizeGate()
    private let currentMapSize: Mutex<Int>
    private let isClosed = Atomic<Bool>(false)
    private let databases: [String: LMDBDatabase]
    private let lock: StoreDirectoryLock

    /// Opens (creating if needed) the environment in directory `path` with the given databases.
    public init(path: String, databases names: [String], configuration: Configuration = .init()) throws(StoreError) {
        self.path = path
        self.configuration = configuration
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw StoreError(.lmdb, "cannot create store directory \(path): \(String(cString: strerror(errno)))")
        }
        let lock = try StoreDirectoryLock(directory: path)

        var env: OpaquePointer?
        try check(mdb_env_create(&env), "create environment")
        guard let env else { throw StoreError(.lmdb, "mdb_env_create returned no environment") }
        do {
            try check(mdb_env_set_maxdbs(env, MDB_dbi(max(names.count, 1))), "set max databases")
            try check(mdb_env_set_maxreaders(env, UInt32(configuration.maxReaders)), "set max readers")
            // NOTLS: reader slots belong to transactions, not threads, because Swift tasks move
            // between threads. NOSYNC only when the operator chose speed over power-loss safety.
            var flags = UInt32(MDB_NOTLS)
            if !configuration.durable { flags |= UInt32(MDB_NOSYNC) }
            try check(mdb_env_open(env, path, flags, 0o600), "open environment at \(path)")
        } catch {
            mdb_env_close(env)
            throw error
        }
        // Opened without a size, LMDB adopts the size the file recorded, so a map grown by an
        // earlier run is not shrunk back to the configured size (and does not fill up again at
        // once). No transaction is open yet, so setting the size here is allowed.
        var info = MDB_envinfo()
        mdb_env_info(env, &info)
        let mapSize = max(info.me_mapsize, configuration.mapSize)
        do {
            try check(mdb_env_set_mapsize(env, mapSize), "set map size")
        } catch {
            mdb_env_close(env)
            throw error
        }
        self.handle = env
        self.lock = lock
        self.currentMapSize = Mutex(mapSize)

        var opened: [String: LMDBDatabase] = [:]
        var txn: OpaquePointer?
        do {
            try check(mdb_txn_begin(env, nil, 0, &txn), "begin transaction to open databases")
            for name in names {
                var dbi = MDB_dbi()
                try check(mdb_dbi_open(txn, name, UInt32(MDB_CREATE), &dbi), "open database \(name)")
                opened[name] = LMDBDatabase(name: name, handle: dbi)
            }
            let rc = mdb_txn_commit(txn)
            txn = nil
            try check(rc, "commit database creation")
        } catch {
            if let txn { mdb_txn_abort(txn) }
            mdb_env_close(env)
            throw error
        }
        self.databases = opened
    }

    deinit {
        self.close()
    }

    /// Closes the environment once every call in progress has left LMDB. Later calls fail with
    /// `store.closed`; the directory lock is released so the store can be opened again.
    public func close() {
        self.gate.exclusive {
            guard !self.isClosed.load(ordering: .acquiring) else { return }
            self.isClosed.store(true, ordering: .releasing)
            mdb_env_close(self.handle)
            self.lock.release()
        }
    }

    /// Runs `body` while the environment is open and cannot be remapped or closed.
    private func whileOpen<T>(_ body: () throws -> T) throws -> T {
        try self.gate.shared { () throws -> T in
            guard !self.isClosed.load(ordering: .acquiring) else {
                throw StoreError(.closed, "the store at \(self.path) is closed")
            }
            return try body()
        }
    }

    public func database(_ name: String) throws(StoreError) -> LMDBDatabase {
        guard let database = self.databases[name] else {
            throw StoreError(.lmdb, "database \(name) was not opened with this environment")
        }
        return database
    }

    public var mapSize: Int { self.currentMapSize.withLock { $0 } }

    /// Bytes of the map in use (pages written so far), for metrics.
    public func usedBytes() throws -> Int {
        // Both calls read the meta pages inside the map, so they must not race a remap.
        try self.whileOpen {
            var info = MDB_envinfo()
            var stat = MDB_stat()
            mdb_env_info(self.handle, &info)
            mdb_env_stat(self.handle, &stat)
            return (info.me_last_pgno + 1) * Int(stat.ms_psize)
        }
    }

    /// Writes a compacted copy of the environment into `directory` (which must exist and be
    /// empty): free pages are left out, so what they held (values since re-sealed) is gone.
    public func compactCopy(to directory: String) throws {
        try self.whileOpen {
            try check(mdb_env_copy2(self.handle, directory, UInt32(MDB_CP_COMPACT)), "write a compacted copy of the store")
        }
    }

    /// Runs `body` in a read-only snapshot.
    public func read<T>(_ body: (borrowing LMDBReadTransaction) throws -> T) throws -> T {
        try self.whileOpen { () throws -> T in
            var txn: OpaquePointer?
            try check(mdb_txn_begin(self.handle, nil, UInt32(MDB_RDONLY), &txn), "begin read transaction")
            guard let txn else { throw StoreError(.lmdb, "mdb_txn_begin returned no transaction") }
            defer { mdb_txn_abort(txn) }
            return try body(LMDBReadTransaction(handle: txn))
        }
    }

    /// Runs `body` in a write transaction and commits it. When the map fills up, the transaction is
    /// dropped, the map doubles (up to `maxMapSize`) and `body` runs again, so `body` must only
    /// depend on what it reads in the transaction.
    ///
    /// Only `StoreWriter` calls this, always from its one thread.
    func withWriteTransaction<T>(_ body: (borrowing LMDBWriteTransaction) throws -> T) throws -> T {
        while true {
            do {
                return try self.whileOpen { () throws -> T in
                    var txn: OpaquePointer?
                    try check(mdb_txn_begin(self.handle, nil, 0, &txn), "begin write transaction")
                    guard let txn else { throw StoreError(.lmdb, "mdb_txn_begin returned no transaction") }
                    let result: T
                    do {
                        result = try body(LMDBWriteTransaction(handle: txn))
                    } catch {
                        mdb_txn_abort(txn)
                        throw error
                    }
                    try check(mdb_txn_commit(txn), "commit")
                    return result
                }
            } catch let error as StoreError where error.isMapFull {
                try self.grow(after: error)
            }
        }
    }

    private func grow(after error: StoreError) throws(StoreError) {
        let current = self.mapSize
        guard current < self.configuration.maxMapSize else {
            throw StoreError(
                .full,
                "store is full at its maximum map size of \(current) bytes; raise store.max-map-size (\(error.message))",
                lmdbCode: error.lmdbCode
            )
        }
        let next = min(current * 2, self.configuration.maxMapSize)
        try self.gate.exclusive { () throws(StoreError) in
            guard !self.isClosed.load(ordering: .acquiring) else { throw StoreError(.closed, "the store at \(self.path) is closed") }
            try check(mdb_env_set_mapsize(self.handle, next), "grow map to \(next) bytes")
        }
        self.currentMapSize.withLock { $0 = next }
    }

    /// Flushes buffers to disk; used at shutdown when commits skip the fsync.
    public func sync() throws {
        try self.whileOpen {
            try check(mdb_env_sync(self.handle, 1), "sync")
        }
    }
}
