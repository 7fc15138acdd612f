import Foundation
import HeraldConfig
import HeraldCore

extension DIDCommKey {
    /// Reads a key written by `herald keygen --kind didcomm`: the Ed25519 seed as 64 hex digits,
    /// surrounding whitespace ignored.
    public init(contentsOfFile path: String, key: String) throws {
        let text = try ConfigurationFile.read(path, key: key)
        guard let seed = Hex.decode(text.trimmingCharacters(in: .whitespacesAndNewlines)), seed.count == 32 else {
            throw ConfigurationError(.invalidValue, "configuration key \(key): \(path) must hold 64 hex digits (an Ed25519 seed)")
        }
        try self.init(seed: seed)
    }

    /// Writes a new random key as `herald keygen --kind didcomm` does (mode 0600, never over a
    /// file) and returns it.
    public static func create(file path: String) throws -> DIDCommKey {
        let seed = Sodium.random(32)
        try SecretFile.create(path, contents: Array((Hex.encode(seed) + "\n").utf8))
        return try DIDCommKey(seed: seed)
    }
}
