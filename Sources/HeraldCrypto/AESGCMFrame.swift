import Crypto
import Foundation

/// Status's AES-GCM container (status-go `common.Encrypt`/`Decrypt`): `nonce(12) ‖ ciphertext ‖ tag(16)`, standard
/// GCM with a 96-bit nonce, a 128-bit tag and no additional data. Status keys are the 32-byte ECDH secret, so this is
/// AES-256-GCM; 16- and 24-byte keys are taken too, as Go's `aes.NewCipher` takes them.
///
/// (The Waku symmetric layer puts the nonce last instead; that layout is not this type.)
public enum AESGCMFrame {
    public static let nonceByteCount = 12
    public static let tagByteCount = 16
    /// The shortest frame that can open: a nonce and a tag around an empty ciphertext.
    public static let minimumByteCount = nonceByteCount + tagByteCount

    /// Encrypts `plaintext` under `key` with a fresh random nonce.
    public static func seal(_ plaintext: some Collection<UInt8>, key: some Collection<UInt8>) throws -> [UInt8] {
        try Self.seal(plaintext, key: key, nonce: AES.GCM.Nonce())
    }

    /// Encrypts `plaintext` under `key` with the given 12-byte nonce. A nonce must never be reused with a key; this
    /// form exists for test vectors.
    public static func seal(
        _ plaintext: some Collection<UInt8>,
        key: some Collection<UInt8>,
        nonce: some Collection<UInt8>
    ) throws -> [UInt8] {
        guard nonce.count == Self.nonceByteCount else {
            throw CryptoError(.invalidNonce, "an AES-GCM nonce is 12 bytes, not \(nonce.count)")
        }
        return try Self.seal(plaintext, key: key, nonce: AES.GCM.Nonce(data: Array(nonce)))
    }

    /// Decrypts and authenticates a frame. Throws `.invalidCiphertext` when it is shorter than 28 bytes and
    /// `.authenticationFailed` when the tag does not match (altered data or the wrong key).
    public static func open(_ frame: some Collection<UInt8>, key: some Collection<UInt8>) throws -> [UInt8] {
        let symmetricKey = try Self.symmetricKey(key)
        let frame = Array(frame)
        guard frame.count >= Self.minimumByteCount else {
            throw CryptoError(
                .invalidCiphertext,
                "an AES-GCM frame is at least \(Self.minimumByteCount) bytes, not \(frame.count)"
            )
        }
        let box: AES.GCM.SealedBox
        do {
            box = try AES.GCM.SealedBox(combined: frame)
        } catch {
            throw CryptoError(.invalidCiphertext, "the AES-GCM frame is malformed: \(error)")
        }
        do {
            return Array(try AES.GCM.open(box, using: symmetricKey))
        } catch {
            throw CryptoError(.authenticationFailed, "the AES-GCM tag does not match")
        }
    }

    private static func seal(
        _ plaintext: some Collection<UInt8>,
        key: some Collection<UInt8>,
        nonce: AES.GCM.Nonce
    ) throws -> [UInt8] {
        let symmetricKey = try Self.symmetricKey(key)
        let box = try AES.GCM.seal(Array(plaintext), using: symmetricKey, nonce: nonce)
        // `combined` is nonce ‖ ciphertext ‖ tag, and present whenever the nonce is the standard 12 bytes.
        guard let combined = box.combined else {
            preconditionFailure("AES.GCM.SealedBox.combined is nil for a 12-byte nonce")
        }
        return Array(combined)
    }

    private static func symmetricKey(_ key: some Collection<UInt8>) throws -> SymmetricKey {
        guard [16, 24, 32].contains(key.count) else {
            throw CryptoError(.invalidSymmetricKey, "an AES key is 16, 24 or 32 bytes, not \(key.count)")
        }
        return SymmetricKey(data: Array(key))
    }
}
