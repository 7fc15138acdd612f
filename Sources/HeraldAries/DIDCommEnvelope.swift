import CSodium
import Foundation
import HeraldCore

/// DIDComm v1 encryption envelopes (Aries RFC 0019), as Aries agents pack them: the content in
/// ChaCha20-Poly1305 (IETF, 12-byte iv, labelled `xchacha20poly1305_ietf` as every wallet labels
/// it; a 24-byte iv is opened as XChaCha20) under a random content key, with the base64url `protected` header
/// as associated data; the content key sealed for each recipient's X25519 key, with `crypto_box`
/// from the sender's key and the sender's verkey sealed beside it (authcrypt), or with
/// `crypto_box_seal` alone (anoncrypt). Herald opens those addressed to its own key and answers
/// in kind.
public enum DIDCommEnvelope {
    /// What an envelope held.
    public struct Opened: Sendable, Equatable {
        public var message: [UInt8]
        /// The sender's verkey (base58) for authcrypt; `nil` for anoncrypt.
        public var sender: String?
    }

    struct Envelope: Codable {
        var protected: String
        var iv: String
        var ciphertext: String
        var tag: String
    }

    struct Protected: Codable {
        var enc: String
        var typ: String?
        var alg: String
        var recipients: [Recipient]
    }

    struct Recipient: Codable {
        struct Header: Codable {
            var kid: String
            var sender: String?
            var iv: String?
        }

        var encryptedKey: String
        var header: Header

        enum CodingKeys: String, CodingKey {
            case encryptedKey = "encrypted_key"
            case header
        }
    }

    /// Opens an envelope addressed to `key`.
    public static func open(_ bytes: [UInt8], with key: DIDCommKey) throws(DIDCommError) -> Opened {
        Sodium.ready()
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(bytes)) else {
            throw .malformed("a JSON object with protected, iv, ciphertext and tag")
        }
        guard let protectedBytes = Self.base64URL(envelope.protected),
            let protected = try? JSONDecoder().decode(Protected.self, from: Data(protectedBytes))
        else { throw .malformed("protected is not a base64url JSON header with enc, alg and recipients") }
        let me = key.verkeyBase58
        guard let recipient = protected.recipients.first(where: { $0.header.kid == me }) else { throw .notForThisKey }
        guard let encryptedKey = Self.base64URL(recipient.encryptedKey) else { throw .malformed("encrypted_key is not base64url") }

        let contentKey: [UInt8]
        var sender: String?
        switch protected.alg {
        case "Authcrypt":
            // Every recipient knows the content key and could write other content under the
            // same header in the sender's name: only an envelope for Herald alone is the sender's.
            guard protected.recipients.count == 1 else {
                throw .malformed("an Authcrypt envelope for this agent must have it as its only recipient")
            }
            guard let sealedSender = recipient.header.sender.flatMap(Self.base64URL), let nonce = recipient.header.iv.flatMap(Self.base64URL),
                nonce.count == Int(crypto_box_NONCEBYTES)
            else { throw .malformed("an Authcrypt recipient needs sender and a 24-byte iv") }
            let senderText = try Self.sealOpen(sealedSender, key: key, what: "the sender")
            guard let name = String(bytes: senderText, encoding: .utf8), let verkey = Base58.decode(name) else {
                throw .decryption("the sender is not a base58 verkey")
            }
            let senderCurve = try DIDCommKey.curvePublic(ofVerkey: verkey)
            guard encryptedKey.count > Int(crypto_box_MACBYTES) else { throw .decryption("encrypted_key is too short") }
            var opened = [UInt8](repeating: 0, count: encryptedKey.count - Int(crypto_box_MACBYTES))
            guard crypto_box_open_easy(&opened, encryptedKey, UInt64(encryptedKey.count), nonce, senderCurve, key.curveSecret) == 0 else {
                throw .decryption("the content key does not open with the sender's key")
            }
            contentKey = opened
            sender = name
        case "Anoncrypt":
            contentKey = try Self.sealOpen(encryptedKey, key: key, what: "the content key")
        default:
            throw .malformed("alg \(protected.alg.prefix(40)) is not Authcrypt or Anoncrypt")
        }
        guard let iv = Self.base64URL(envelope.iv), let ciphertext = Self.base64URL(envelope.ciphertext), let tag = Self.base64URL(envelope.tag) else {
            throw .malformed("iv, ciphertext and tag must be base64url")
        }
        let message = try Self.decrypt(ciphertext + tag, enc: protected.enc, key: contentKey, nonce: iv, aad: Array(envelope.protected.utf8))
        return Opened(message: message, sender: sender)
    }

    /// Packs `message` for `recipients` (base58 verkeys): authcrypt from `sender`, or anoncrypt
    /// without one. The random parts may be given, for test vectors.
    ///
    /// The content is ChaCha20-Poly1305 IETF with a 12-byte iv under the label
    /// `xchacha20poly1305_ietf`, as RFC 0019's algorithm, ACA-Py, Credo and indy-sdk pack it: they
    /// open every envelope that way and refuse a 24-byte iv. A given 24-byte iv packs real
    /// XChaCha20-Poly1305, for vectors of that form.
    public static func pack(
        _ message: [UInt8],
        for recipients: [String],
        from sender: DIDCommKey?,
        contentKey givenKey: [UInt8]? = nil,
        iv givenIV: [UInt8]? = nil
    ) throws(DIDCommError) -> [UInt8] {
        Sodium.ready()
        let contentKey = givenKey ?? Sodium.random(Int(crypto_aead_chacha20poly1305_ietf_KEYBYTES))
        let iv = givenIV ?? Sodium.random(ContentCipher.chacha20.nonceLength)
        guard contentKey.count == Int(crypto_aead_chacha20poly1305_ietf_KEYBYTES), let cipher = ContentCipher(nonceLength: iv.count) else {
            throw .key("a content key is 32 bytes and an iv 12 or 24")
        }
        var sealed: [Recipient] = []
        for recipient in recipients {
            guard let verkey = Base58.decode(recipient) else { throw .key("recipient \(recipient.prefix(60)) is not a base58 verkey") }
            let curve = try DIDCommKey.curvePublic(ofVerkey: verkey)
            if let sender {
                let nonce = Sodium.random(Int(crypto_box_NONCEBYTES))
                var boxed = [UInt8](repeating: 0, count: contentKey.count + Int(crypto_box_MACBYTES))
                guard crypto_box_easy(&boxed, contentKey, UInt64(contentKey.count), nonce, curve, sender.curveSecret) == 0 else {
                    throw .key("crypto_box refused the recipient's key")
                }
                let name = try Self.seal(Array(sender.verkeyBase58.utf8), for: curve)
                sealed.append(Recipient(encryptedKey: Self.base64URL(boxed), header: .init(kid: recipient, sender: Self.base64URL(name), iv: Self.base64URL(nonce))))
            } else {
                sealed.append(Recipient(encryptedKey: Self.base64URL(try Self.seal(contentKey, for: curve)), header: .init(kid: recipient)))
            }
        }
        let header = Protected(enc: "xchacha20poly1305_ietf", typ: "JWM/1.0", alg: sender == nil ? "Anoncrypt" : "Authcrypt", recipients: sealed)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard let headerJSON = try? encoder.encode(header) else { throw .malformed("the header does not encode") }
        let protected = Self.base64URL(Array(headerJSON))
        let sealedContent = try cipher.seal(message, aad: Array(protected.utf8), nonce: iv, key: contentKey)
        let tagStart = sealedContent.count - ContentCipher.tagLength
        let envelope = Envelope(
            protected: protected,
            iv: Self.base64URL(iv),
            ciphertext: Self.base64URL(Array(sealedContent[..<tagStart])),
            tag: Self.base64URL(Array(sealedContent[tagStart...]))
        )
        guard let bytes = try? encoder.encode(envelope) else { throw .malformed("the envelope does not encode") }
        return Array(bytes)
    }

    /// Opens the content by the iv's length, whichever of the two labels it came under: wallets
    /// write `xchacha20poly1305_ietf` over 12-byte ChaCha20-Poly1305, and only XChaCha20 takes 24.
    private static func decrypt(_ sealed: [UInt8], enc: String, key: [UInt8], nonce: [UInt8], aad: [UInt8]) throws(DIDCommError) -> [UInt8] {
        guard enc == "xchacha20poly1305_ietf" || enc == "chacha20poly1305_ietf" else {
            throw .malformed("enc \(enc.prefix(40)) is not xchacha20poly1305_ietf or chacha20poly1305_ietf")
        }
        guard let cipher = ContentCipher(nonceLength: nonce.count) else {
            throw .malformed("the iv is \(nonce.count) bytes: 12 for ChaCha20-Poly1305 (as wallets pack) or 24 for XChaCha20-Poly1305")
        }
        guard key.count == 32 else { throw .decryption("the content key is \(key.count) bytes, not 32") }
        return try cipher.open(sealed, aad: aad, nonce: nonce, key: key)
    }

    private static func seal(_ message: [UInt8], for curve: [UInt8]) throws(DIDCommError) -> [UInt8] {
        var sealed = [UInt8](repeating: 0, count: message.count + Int(crypto_box_sealbytes()))
        guard crypto_box_seal(&sealed, message, UInt64(message.count), curve) == 0 else { throw .key("crypto_box_seal refused the key") }
        return sealed
    }

    private static func sealOpen(_ sealed: [UInt8], key: DIDCommKey, what: String) throws(DIDCommError) -> [UInt8] {
        guard sealed.count > Int(crypto_box_sealbytes()) else { throw .decryption("\(what) is too short") }
        var opened = [UInt8](repeating: 0, count: sealed.count - Int(crypto_box_sealbytes()))
        guard crypto_box_seal_open(&opened, sealed, UInt64(sealed.count), key.curvePublic, key.curveSecret) == 0 else {
            throw .decryption("\(what) is not sealed for this agent's key")
        }
        return opened
    }

    /// base64url, padding optional (agents differ).
    static func base64URL(_ text: String) -> [UInt8]? {
        Base64URL.decode(text, acceptingStandardAlphabet: true)
    }

    /// base64url with padding, as indy-sdk writes it.
    static func base64URL(_ bytes: [UInt8]) -> String {
        Base64URL.encode(bytes, padded: true)
    }
}
