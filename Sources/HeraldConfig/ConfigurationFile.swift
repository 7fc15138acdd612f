#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files a configuration key names (keys, certificates, service accounts, the YAML file), read at
/// start-up. Each is checked to be a regular file of at most `maximumSize` before a byte is read:
/// a huge or endless file named by mistake must not exhaust memory or stall start-up.
public enum ConfigurationFile {
    /// Far above any key, certificate chain, CA bundle or configuration Herald reads.
    public static let maximumSize = 1 << 20

    /// The file's UTF-8 text; anything else is a `ConfigurationError` naming `key`.
    public static func read(_ path: String, key: String, maximumSize: Int = Self.maximumSize) throws(ConfigurationError) -> String {
        let bytes = try Self.bytes(path, key: key, maximumSize: maximumSize)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(.unreadableFile, "configuration key \(key): \(path) is not UTF-8 text")
        }
        return text
    }

    public static func bytes(_ path: String, key: String, maximumSize: Int = Self.maximumSize) throws(ConfigurationError) -> [UInt8] {
        func failure(_ reason: String) -> ConfigurationError {
            ConfigurationError(.unreadableFile, "configuration key \(key): cannot read \(path): \(reason)")
        }
        // O_NONBLOCK keeps a FIFO named by mistake from blocking the open; it is refused below.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw failure(Self.errorText(errno)) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure(Self.errorText(errno)) }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw failure("it is a directory, not a file")
        default: throw failure("it is not a regular file")
        }
        guard status.st_size <= maximumSize else {
            throw failure("it is \(status.st_size) bytes; files named by configuration keys are at most \(maximumSize) bytes")
        }
        // One byte more than the size checked, so a file that grew meanwhile is noticed.
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size) + 1)
        var filled = 0
        while filled < bytes.count {
            let count = bytes[filled...].withUnsafeMutableBytes { readFile(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw failure(Self.errorText(errno)) }
            if count == 0 { break }
            filled += count
        }
        guard filled < bytes.count else { throw failure("it grew while being read") }
        return Array(bytes[..<filled])
    }

    private static func errorText(_ code: Int32) -> String {
        switch code {
        case ENOENT: "no such file"
        case EACCES: "permission denied (the node runs as a user who cannot read it)"
        default: String(cString: strerror(code))
        }
    }
}

/// The system's `read`, which `ConfigurationFile.read` hides inside the enum.
private func readFile(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
