import Foundation
import HeraldCore
public import HeraldCrypto
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension StatusIdentity {
    /// Reads a private key written by `herald keygen`: 64 hex digits, optionally `0x`-prefixed,
    /// surrounding whitespace ignored.
    public init(contentsOfFile path: String) throws {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw StatusError(.identityKey, "cannot read the Status identity key \(path): \(error.localizedDescription)")
        }
        var hex = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if hex.hasPrefix("0x") { hex.removeFirst(2) }
        guard hex.utf8.count == 64, let bytes = Hex.decode(hex) else {
            throw StatusError(.identityKey, "the Status identity key \(path) must hold 64 hex digits (a secp256k1 private key)")
        }
        self.init(privateKey: try Secp256k1PrivateKey(rawRepresentation: bytes))
    }

    /// Writes `privateKey` as `herald keygen` does: hex and a newline, in a file created for the
    /// purpose with mode 0600 — never over an existing file or through a symbolic link, and never
    /// readable by others, not even for a moment.
    public static func write(_ privateKey: Secp256k1PrivateKey, toFile path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST ? "it exists; an identity key is never overwritten" : String(cString: strerror(errno))
            throw StatusError(.identityKey, "cannot create \(path): \(reason)")
        }
        defer { close(descriptor) }
        let bytes = Array((Hex.encode(privateKey.rawRepresentation) + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else {
                if count < 0, errno == EINTR { continue }
                throw StatusError(.identityKey, "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            written += count
        }
        guard fsync(descriptor) == 0 else {
            throw StatusError(.identityKey, "cannot sync \(path): \(String(cString: strerror(errno)))")
        }
    }
}
