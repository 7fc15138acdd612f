public import Crypto
import Foundation
import HeraldCore

/// Encrypts a Web Push message as an application server does (RFC 8291 `aes128gcm`, and the
/// drafts' `aesgcm` that Mastodon's legacy subscriptions use): the Web Push provider's messages,
/// and the relay benchmark's. One record, no padding.
public enum WebPushEncryption {
    public struct Message: Sendable {
        public var body: [UInt8]
        /// `Content-Encoding` and, for `aesgcm`, `Encryption` and `Crypto-Key`.
        public var headers: [(String, String)]
    }

    /// `receiver` is the subscription's `p256dh`, `authSecret` its `auth`; the sender key and
    /// salt are random unless given (for test vectors).
    public static func aes128gcm(
        _ plaintext: [UInt8],
        receiver: P256.KeyAgreement.PublicKey,
        authSecret: [UInt8],
        sender: P256.KeyAgreement.PrivateKey = .init(),
        salt: [UInt8] = Self.randomSalt()
    ) throws -> Message {
        let (receiverKey, senderKey, secret) = try Self.agreement(sender, receiver)
        let prkKey = Self.hmac(key: authSecret, secret)
        let ikm = Self.hmac(key: prkKey, Array("WebPush: info".utf8) + [0] + receiverKey + senderKey + [1])
        let prk = Self.hmac(key: salt, ikm)
        let cek = Self.hmac(key: prk, Array("Content-Encoding: aes128gcm".utf8) + [0, 1]).prefix(16)
        let nonce = Self.hmac(key: prk, Array("Content-Encoding: nonce".utf8) + [0, 1]).prefix(12)
        let sealed = try AES.GCM.seal(plaintext + [2], using: SymmetricKey(data: cek), nonce: AES.GCM.Nonce(data: nonce))
        let header = salt + [0, 0, 0x10, 0] + [UInt8(senderKey.count)] + senderKey
        return Message(body: header + sealed.ciphertext + sealed.tag, headers: [("Content-Encoding", "aes128gcm")])
    }

    public static func aesgcm(
        _ plaintext: [UInt8],
        receiver: P256.KeyAgreement.PublicKey,
        authSecret: [UInt8],
        sender: P256.KeyAgreement.PrivateKey = .init(),
        salt: [UInt8] = Self.randomSalt()
    ) throws -> Message {
        let (receiverKey, senderKey, secret) = try Self.agreement(sender, receiver)
        let ikm = Self.hkdf(salt: authSecret, ikm: secret, info: Array("Content-Encoding: auth".utf8) + [0], count: 32)
        let context = Array("P-256".utf8) + [0, 0, 65] + receiverKey + [0, 65] + senderKey
        let cek = Self.hkdf(salt: salt, ikm: ikm, info: Array("Content-Encoding: aesgcm".utf8) + [0] + context, count: 16)
        let nonce = Self.hkdf(salt: salt, ikm: ikm, info: Array("Content-Encoding: nonce".utf8) + [0] + context, count: 12)
        let sealed = try AES.GCM.seal([0, 0] + plaintext, using: SymmetricKey(data: cek), nonce: AES.GCM.Nonce(data: nonce))
        return Message(
            body: Array(sealed.ciphertext + sealed.tag),
            headers: [
                ("Content-Encoding", "aesgcm"),
                ("Encryption", "salt=" + Self.base64URL(salt)),
                ("Crypto-Key", "dh=" + Self.base64URL(senderKey)),
            ]
        )
    }

    /// Both public keys (uncompressed) and the ECDH secret, which both encodings start from.
    static func agreement(_ sender: P256.KeyAgreement.PrivateKey, _ receiver: P256.KeyAgreement.PublicKey) throws -> ([UInt8], [UInt8], [UInt8]) {
        let secret = try sender.sharedSecretFromKeyAgreement(with: receiver).withUnsafeBytes { Array($0) }
        return (Array(receiver.x963Representation), Array(sender.publicKey.x963Representation), secret)
    }

    public static func randomSalt() -> [UInt8] {
        (0..<16).map { _ in UInt8.random(in: 0...255) }
    }

    static func hmac(key: some ContiguousBytes, _ data: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: key)))
    }

    static func hkdf(salt: [UInt8], ikm: [UInt8], info: [UInt8], count: Int) -> [UInt8] {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: ikm), salt: salt, info: info, outputByteCount: count)
            .withUnsafeBytes { Array($0) }
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Base64URL.encode(bytes)
    }
}
