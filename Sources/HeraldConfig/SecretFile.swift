#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a new key file: created for the purpose with mode 0600, never over an existing file
/// or through a symbolic link, never readable by others even for a moment, and synced.
public enum SecretFile {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static func create(_ path: String, contents: [UInt8]) throws(Failure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST ? "it exists; a key file is never overwritten" : String(cString: strerror(errno))
            throw Failure(description: "cannot create \(path): \(reason)")
        }
        var complete = false
        defer {
            close(descriptor)
            // A half-written key would block the next attempt, which never overwrites.
            if !complete { unlink(path) }
        }
        var written = 0
        while written < contents.count {
            let count = contents[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else {
                if count < 0, errno == EINTR { continue }
                throw Failure(description: "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            written += count
        }
        guard fsync(descriptor) == 0 else {
            throw Failure(description: "cannot sync \(path): \(String(cString: strerror(errno)))")
        }
        complete = true
        // The new name must survive a power cut too: a key that vanishes after the store sealed
        // values under it would leave them unreadable.
        Self.syncDirectory(of: path)
    }

    /// Makes the entries of the directory holding `path` (a new or renamed file) durable.
    public static func syncDirectory(of path: String) {
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let descriptor = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }
}
