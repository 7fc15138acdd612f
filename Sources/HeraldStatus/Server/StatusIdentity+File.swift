import Foundation
import HeraldCore
public import HeraldCrypto

extension StatusIdentity {
    /// Reads a private key written by `herald keygen`: 64 hex digits, optionally `0x`-prefixed,
    /// surrounding whitespace ignored.
    public init(contentsOfFile path: String) throws {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw StatusError(.invalidMessage, "cannot read the Status identity key \(path): \(error.localizedDescription)")
        }
        var hex = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if hex.hasPrefix("0x") { hex.removeFirst(2) }
        guard hex.utf8.count == 64, let bytes = Hex.decode(hex) else {
            throw StatusError(.invalidMessage, "the Status identity key \(path) must hold 64 hex digits (a secp256k1 private key)")
        }
        self.init(privateKey: try Secp256k1PrivateKey(rawRepresentation: bytes))
    }

    /// Writes `privateKey` as `herald keygen` does: hex and a newline, readable by the owner only.
    public static func write(_ privateKey: Secp256k1PrivateKey, toFile path: String) throws {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw StatusError(.invalidMessage, "\(path) exists; refusing to overwrite an identity key")
        }
        let created = FileManager.default.createFile(
            atPath: path,
            contents: Data((Hex.encode(privateKey.rawRepresentation) + "\n").utf8),
            attributes: [.posixPermissions: 0o600]
        )
        guard created else { throw StatusError(.invalidMessage, "cannot create \(path)") }
    }
}
