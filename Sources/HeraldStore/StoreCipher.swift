import Crypto
import Foundation
public import HeraldCore

/// Encrypts what the store keeps about devices — registrations (device tokens and the secrets
/// front doors keep with them) and the commands of the log — with AES-256-GCM under the node
/// key, so a copy of `data.mdb`, a backup or etcd's data holds no token.
///
/// Keys come as a ring: the first seals, every one opens, so a new key can be put first while
/// values sealed under the old one are still read (`herald store rotate-key` re-seals the
/// store's values; etcd log entries keep the old key until compacted away). A value is
/// `0xE5 ‖ key id (4) ‖ nonce (12) ‖ ciphertext ‖ tag (16)`, the key id being the first bytes of
/// SHA-256 of the key. A value that does not start with `0xE5` was written before encryption
/// (values of Herald's encodings start with a small format version) and is read as it is.
public final class StoreCipher: Sendable, KeyMaterial {
    static let marker: UInt8 = 0xE5
    static let keyIDLength = 4
    static let overhead = 1 + keyIDLength + 12 + 16

    private let keys: [(id: [UInt8], key: SymmetricKey)]

    /// `keys` are 32 bytes each; the first seals.
    public init(keys: [[UInt8]]) throws(StoreError) {
        guard !keys.isEmpty, keys.allSatisfy({ $0.count == 32 }) else {
            throw StoreError(.corrupt, "a store key is 32 bytes (64 hex digits)")
        }
        self.keys = keys.map { (Array(SHA256.hash(data: $0).prefix(Self.keyIDLength)), SymmetricKey(data: $0)) }
    }

    /// Keys as written in a key file or `store.encryption-key`: 64 hex digits each, separated by
    /// white space or commas, the sealing key first; `#` starts a comment.
    public convenience init(text: String) throws(StoreError) {
        var keys: [[UInt8]] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            for word in content.split(whereSeparator: { $0 == "," || $0.isWhitespace }) {
                guard word.utf8.count == 64, let key = Hex.decode(String(word)) else {
                    throw StoreError(.corrupt, "a store key is 64 hex digits; found a word of \(word.utf8.count) characters")
                }
                keys.append(key)
            }
        }
        try self.init(keys: keys)
    }

    /// A fresh random key, as a key file holds it.
    public static func newKeyText() -> String {
        Hex.encode(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }) + "\n"
    }

    /// The id of the sealing key, as hex, for logs: it names the key without revealing it.
    public var keyID: String { Hex.encode(self.keys[0].id) }

    /// `plaintext` sealed under the first key; `context` (what the value is stored under) is
    /// authenticated, so a value moved to another key does not open.
    public func seal(_ plaintext: [UInt8], context: [UInt8]) throws(StoreError) -> [UInt8] {
        let (id, key) = self.keys[0]
        guard let box = try? AES.GCM.seal(plaintext, using: key, authenticating: context), let combined = box.combined else {
            throw StoreError(.corrupt, "a store value could not be sealed")
        }
        var value: [UInt8] = [Self.marker]
        value.reserveCapacity(Self.overhead + plaintext.count)
        value += id
        value += combined
        return value
    }

    /// The plaintext of `value`; an unsealed value as it is.
    public func open(_ value: some Collection<UInt8>, context: [UInt8]) throws(StoreError) -> [UInt8] {
        guard value.first == Self.marker else { return Array(value) }
        let bytes = Array(value)
        guard bytes.count >= Self.overhead else { throw StoreError(.corrupt, "a sealed store value is truncated") }
        let id = Array(bytes[1...Self.keyIDLength])
        guard let key = self.keys.first(where: { $0.id == id })?.key else {
            throw StoreError(.corrupt, "a store value is sealed under key \(Hex.encode(id)), which is not in the configured key ring")
        }
        do {
            let box = try AES.GCM.SealedBox(combined: bytes[(1 + Self.keyIDLength)...])
            return Array(try AES.GCM.open(box, using: key, authenticating: context))
        } catch {
            throw StoreError(.corrupt, "a sealed store value does not open with key \(Hex.encode(id)): it was altered or moved")
        }
    }

    /// Whether `value` is sealed under the sealing key (what rotation leaves alone).
    public func isCurrent(_ value: some Collection<UInt8>) -> Bool {
        value.first == Self.marker && Array(value.dropFirst().prefix(Self.keyIDLength)) == self.keys[0].id
    }
}

extension Optional where Wrapped == StoreCipher {
    package func seal(_ plaintext: [UInt8], context: [UInt8]) throws(StoreError) -> [UInt8] {
        guard let cipher = self else { return plaintext }
        return try cipher.seal(plaintext, context: context)
    }

    package func open(_ value: some Collection<UInt8>, context: [UInt8]) throws(StoreError) -> [UInt8] {
        guard let cipher = self else { return Array(value) }
        return try cipher.open(value, context: context)
    }
}
