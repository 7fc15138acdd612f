import Crypto
import Foundation
import _CryptoExtras

/// go-ethereum's ECIES (`crypto/ecies`) with its secp256k1 defaults, `ECIES_AES128_SHA256`, and empty shared
/// information s1 and s2, as Waku's asymmetric encryption uses it:
///
/// ```
/// R(65: 04 ‖ X ‖ Y, ephemeral) ‖ IV(16) ‖ AES-128-CTR(Ke, IV, m) ‖ HMAC-SHA-256(Km, IV ‖ c)(32)
/// z  = X of r · recipient, 32 bytes (see `ECDH`)
/// K  = SHA-256(00 00 00 01 ‖ z)          NIST SP 800-56 concatenation KDF, one round
/// Ke = K[0..<16],  Km = SHA-256(K[16..<32])
/// ```
///
/// The counter block is the whole 16-byte IV, incremented as one big-endian 128-bit number (Go's `cipher.NewCTR`).
public enum ECIES {
    public static let ephemeralKeyByteCount = 65
    public static let ivByteCount = 16
    public static let tagByteCount = 32
    /// The overhead on top of the message: 65 + 16 + 32 = 113 bytes.
    public static let overheadByteCount = ephemeralKeyByteCount + ivByteCount + tagByteCount

    /// Encrypts `message` to `publicKey` with a fresh ephemeral key and IV.
    public static func encrypt(_ message: some Collection<UInt8>, to publicKey: Secp256k1PublicKey) throws -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let iv = (0..<Self.ivByteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return try Self.encrypt(message, to: publicKey, ephemeralKey: Secp256k1PrivateKey(), iv: iv)
    }

    /// Encrypts with the given ephemeral key and 16-byte IV. Both must be fresh and secret for every message; this
    /// form exists for test vectors.
    ///
    /// go-ethereum's `Encrypt` returns an empty result for an empty message; this returns the 113-byte encryption of
    /// the empty message, which go-ethereum's `Decrypt` opens.
    public static func encrypt(
        _ message: some Collection<UInt8>,
        to publicKey: Secp256k1PublicKey,
        ephemeralKey: Secp256k1PrivateKey,
        iv: some Collection<UInt8>
    ) throws -> [UInt8] {
        let iv = Array(iv)
        guard iv.count == Self.ivByteCount else {
            throw CryptoError(.invalidNonce, "an ECIES IV is 16 bytes, not \(iv.count)")
        }
        let keys = try Keys(shared: ECDH.sharedSecret(privateKey: ephemeralKey, publicKey: publicKey))
        let ciphertext = try Self.ctr(Array(message), key: keys.encryption, iv: iv)
        let body = iv + ciphertext
        let tag = HMAC<SHA256>.authenticationCode(for: body, using: keys.mac)
        return ephemeralKey.publicKey.uncompressedRepresentation + body + Array(tag)
    }

    /// Decrypts `ciphertext` with the recipient's `privateKey`. Throws `.invalidCiphertext` when it is shorter than
    /// 113 bytes, `.invalidPublicKey` when the leading ephemeral key is not an uncompressed point, and
    /// `.authenticationFailed` when the MAC does not match; the MAC is checked, in constant time, before decryption.
    public static func decrypt(
        _ ciphertext: some Collection<UInt8>,
        using privateKey: Secp256k1PrivateKey
    ) throws -> [UInt8] {
        let bytes = Array(ciphertext)
        guard bytes.count >= Self.overheadByteCount else {
            throw CryptoError(
                .invalidCiphertext,
                "an ECIES ciphertext is at least \(Self.overheadByteCount) bytes, not \(bytes.count)"
            )
        }
        // go-ethereum reads R with `elliptic.Unmarshal`, which takes only the uncompressed form.
        guard bytes[0] == 0x04 else {
            throw CryptoError(.invalidPublicKey, "the ECIES ephemeral key must be uncompressed (04 ‖ X ‖ Y)")
        }
        let ephemeral = try Secp256k1PublicKey(bytes: bytes[0..<Self.ephemeralKeyByteCount])
        let keys = try Keys(shared: ECDH.sharedSecret(privateKey: privateKey, publicKey: ephemeral))
        let tagStart = bytes.count - Self.tagByteCount
        let body = bytes[Self.ephemeralKeyByteCount..<tagStart]
        guard HMAC<SHA256>.isValidAuthenticationCode(bytes[tagStart...], authenticating: body, using: keys.mac) else {
            throw CryptoError(.authenticationFailed, "the ECIES MAC does not match")
        }
        let iv = Array(body.prefix(Self.ivByteCount))
        return try Self.ctr(Array(body.dropFirst(Self.ivByteCount)), key: keys.encryption, iv: iv)
    }

    /// Ke and Km from the ECDH secret z.
    private struct Keys {
        let encryption: SymmetricKey
        let mac: SymmetricKey

        init(shared z: [UInt8]) {
            // Concatenation KDF for 32 bytes with SHA-256: a single round, counter 1, s1 empty.
            var kdf = SHA256()
            kdf.update(data: [0, 0, 0, 1] as [UInt8])
            kdf.update(data: z)
            let k = Array(kdf.finalize())
            self.encryption = SymmetricKey(data: k[0..<16])
            self.mac = SymmetricKey(data: Array(SHA256.hash(data: k[16..<32])))
        }
    }

    private static func ctr(_ input: [UInt8], key: SymmetricKey, iv: [UInt8]) throws -> [UInt8] {
        guard !input.isEmpty else { return [] }
        let nonce = try AES._CTR.Nonce(nonceBytes: iv)
        return Array(try AES._CTR.encrypt(input, using: key, nonce: nonce))
    }
}
