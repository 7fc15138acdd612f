import Foundation
import HeraldCore
public import HeraldCrypto
import HeraldConfig

extension StatusIdentity {
    /// Reads a private key written by `herald keygen`: 64 hex digits, optionally `0x`-prefixed,
    /// surrounding whitespace ignored.
    public init(contentsOfFile path: String, key: String = "status.identity-key-file") throws {
        var hex = try ConfigurationFile.read(path, key: key).trimmingCharacters(in: .whitespacesAndNewlines)
        if hex.hasPrefix("0x") { hex.removeFirst(2) }
        guard hex.utf8.count == 64, let bytes = Hex.decode(hex), let privateKey = try? Secp256k1PrivateKey(rawRepresentation: bytes) else {
            throw ConfigurationError(.invalidValue, "configuration key \(key): \(path) must hold 64 hex digits (a secp256k1 private key)")
        }
        self.init(privateKey: privateKey)
    }

    /// Writes `privateKey` as `herald keygen` does: hex and a newline, in a file created for the
    /// purpose with mode 0600 — never over an existing file or through a symbolic link, and never
    /// readable by others, not even for a moment.
    public static func write(_ privateKey: Secp256k1PrivateKey, toFile path: String) throws {
        do {
            try SecretFile.create(path, contents: Array((Hex.encode(privateKey.rawRepresentation) + "\n").utf8))
        } catch {
            throw StatusError(.identityKey, error.description)
        }
    }
}
