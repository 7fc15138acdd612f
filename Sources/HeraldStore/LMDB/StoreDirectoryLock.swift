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
    /// Tries 20 ms apart before a held lock is an error: half a second.
    static let tries = 25

    init(directory: String) throws(StoreError) {
        let path = directory + "/herald.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StoreError(.lmdb, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        // A child this process spawns shares the lock's open file description from the fork until
        // its exec closes it (O_CLOEXEC), however briefly: a store closed and opened again while
        // another thread spawns a program can find its own released lock still held. A holder that
        // is a real other open keeps it past these few tries.
        var tries = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0, errno == EWOULDBLOCK, tries < Self.tries {
            tries += 1
            usleep(20_000)
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
            close(fd)
            fd = -1
        }
    }

    deinit {
        self.release()
    }
}
