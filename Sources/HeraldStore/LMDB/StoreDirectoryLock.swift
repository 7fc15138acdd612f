#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// An exclusive `flock` on `herald.lock` in the store directory, held while the store is open.
///
/// LMDB itself lets several processes share an environment, but Herald's log follower and map
/// growth assume one owner: a second node or tool on the same directory would see writes it was
/// never told about. The lock turns that mistake into a clear error at open.
final class StoreDirectoryLock: Sendable {
    private let descriptor: Mutex<Int32>

    init(directory: String) throws(StoreError) {
        let path = directory + "/herald.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StoreError(.lmdb, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno == EWOULDBLOCK ? "another Herald process (or another open in this one) holds it" : String(cString: strerror(errno))
            close(fd)
            throw StoreError(.locked, "the store at \(directory) is in use: \(reason)")
        }
        self.descriptor = Mutex(fd)
    }

    func release() {
        self.descriptor.withLock { fd in
            guard fd >= 0 else { return }
            // Unlocked before closing: a child this process is spawning shares the lock's open
            // file description from its fork until its exec closes it (O_CLOEXEC), and closing
            // only this descriptor would leave the lock held that long, so a store closed and
            // opened again at that moment would find itself locked out.
            flock(fd, LOCK_UN)
            close(fd)
            fd = -1
        }
    }

    deinit {
        self.release()
    }
}
