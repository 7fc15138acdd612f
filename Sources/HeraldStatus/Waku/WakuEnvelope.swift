import Crypto
public import HeraldCrypto

/// The encryption around a Waku version-1 payload: symmetric for query topics, ECIES for
/// partitioned and personal topics (go-waku `waku_payload.go`).
public enum WakuEnvelope {
    /// AES-256-GCM with no additional data, laid out `ciphertext ‖ tag ‖ nonce` — nonce last,
    /// unlike Status's own AES-GCM frame.
    public static func sealSymmetric(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8]? = nil) throws -> [UInt8] {
        let key = try Self.symmetricKey(key)
        let sealed = try AES.GCM.seal(plaintext, using: key, nonce: nonce.map { try AES.GCM.Nonce(data: $0) } ?? AES.GCM.Nonce())
        return Array(sealed.ciphertext) + Array(sealed.tag) + Array(sealed.nonce)
    }

    public static func openSymmetric(_ envelope: [UInt8], key: [UInt8]) throws -> [UInt8] {
        let key = try Self.symmetricKey(key)
        let nonceLength = AESGCMFrame.nonceByteCount
        let tagLength = AESGCMFrame.tagByteCount
        guard envelope.count >= nonceLength + tagLength else {
            throw CryptoError(.invalidCiphertext, "a symmetric Waku envelope is at least 28 bytes, not \(envelope.count)")
        }
        let nonceStart = envelope.count - nonceLength
        let tagStart = nonceStart - tagLength
        let box = try AES.GCM.SealedBox(
            nonce: AES.GCM.Nonce(data: envelope[nonceStart...]),
            ciphertext: envelope[..<tagStart],
            tag: envelope[tagStart..<nonceStart]
        )
        do {
            return Array(try AES.GCM.open(box, using: key))
        } catch {
            throw CryptoError(.authenticationFailed, "the symmetric Waku envelope does not authenticate")
        }
    }

    public static func sealAsymmetric(_ plaintext: [UInt8], to recipient: Secp256k1PublicKey) throws -> [UInt8] {
        try ECIES.encrypt(plaintext, to: recipient)
    }

    public static func openAsymmetric(_ envelope: [UInt8], using key: Secp256k1PrivateKey) throws -> [UInt8] {
        try ECIES.decrypt(envelope, using: key)
    }

    /// go-waku refuses keys that are not 32 bytes or are all zero.
    private static func symmetricKey(_ bytes: [UInt8]) throws -> SymmetricKey {
        guard bytes.count == 32, bytes.contains(where: { $0 != 0 }) else {
            throw CryptoError(.invalidSymmetricKey, "a Waku symmetric key is 32 bytes, not all zero")
        }
        return SymmetricKey(data: bytes)
    }
}
