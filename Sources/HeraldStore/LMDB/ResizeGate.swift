#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lets many transactions run at once but none while the map is being resized.
///
/// LMDB's `mdb_env_set_mapsize` remaps the file, so it must not run while any transaction of this
/// process is open. Every transaction holds the gate shared; a resize holds it exclusively. The lock
/// prefers writers so a steady stream of reads cannot starve a resize.
final class ResizeGate: @unchecked Sendable {  // Safe: only a pthread rwlock, see below.
    // @unchecked: the only state is a heap-allocated pthread rwlock, created in init, destroyed in
    // deinit, and otherwise touched only through pthread_rwlock_* calls, which are thread-safe.
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    init() {
        self.lock = .allocate(capacity: 1)
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        #if canImport(Glibc)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        #endif
        pthread_rwlock_init(self.lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    deinit {
        pthread_rwlock_destroy(self.lock)
        self.lock.deallocate()
    }

    func shared<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_rwlock_rdlock(self.lock)
        defer { pthread_rwlock_unlock(self.lock) }
        return try body()
    }

    func exclusive<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_rwlock_wrlock(self.lock)
        defer { pthread_rwlock_unlock(self.lock) }
        return try body()
    }
}
