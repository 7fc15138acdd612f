import Foundation
import HeraldAries
import Testing

/// Herald's DIDComm v1 envelopes against PyNaCl's (vectors/didcomm_v1.py, regenerated and compared
/// by scripts/check-vectors.sh): the same keys from the same seeds, Python's envelopes opened,
/// Herald's opened by itself, and every tampering refused.
@Suite struct DIDCommEnvelopeTests {
    struct Vectors: Decodable {
        struct Agent: Decodable {
            var seed: String
            var verkey: String
        }

        var herald: Agent
        var wallet: Agent
        var message: String
        var authcrypt: String
        var anoncrypt: String
        /// As wallets pack: a 12-byte iv, ChaCha20-Poly1305 IETF, labelled xchacha20poly1305_ietf.
        var authcryptChaCha: String

        enum CodingKeys: String, CodingKey {
            case herald, wallet, message, authcrypt, anoncrypt
            case authcryptChaCha = "authcrypt_chacha"
        }
    }

    static let vectors: Vectors = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("vectors/didcomm_v1.json")
        return try! JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url))
    }()

    static func bytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    let herald = try! DIDCommKey(seed: Self.bytes(Self.vectors.herald.seed))
    let wallet = try! DIDCommKey(seed: Self.bytes(Self.vectors.wallet.seed))

    @Test func seedsGiveTheSameVerkeys() {
        #expect(self.herald.verkeyBase58 == Self.vectors.herald.verkey)
        #expect(self.wallet.verkeyBase58 == Self.vectors.wallet.verkey)
    }

    @Test func pyNaClAuthcryptOpensWithItsSender() throws {
        let opened = try DIDCommEnvelope.open(Array(Self.vectors.authcrypt.utf8), with: self.herald)
        #expect(opened.message == Self.bytes(Self.vectors.message))
        #expect(opened.sender == Self.vectors.wallet.verkey)
    }

    @Test func walletsTwelveByteIVUnderTheXChaChaLabelOpens() throws {
        let envelope = try #require(try JSONSerialization.jsonObject(with: Data(Self.vectors.authcryptChaCha.utf8)) as? [String: String])
        let iv = try #require(envelope["iv"])
        #expect(Self.base64URL(iv)?.count == 12)
        #expect(try Self.protectedHeader(envelope)["enc"] as? String == "xchacha20poly1305_ietf")
        let opened = try DIDCommEnvelope.open(Array(Self.vectors.authcryptChaCha.utf8), with: self.herald)
        #expect(opened.message == Self.bytes(Self.vectors.message))
        #expect(opened.sender == Self.vectors.wallet.verkey)
    }

    /// ACA-Py and Credo open every envelope with a 12-byte iv and refuse 24 bytes, whatever `enc`
    /// says; Herald answers in that form.
    @Test func heraldPacksTheFormWalletsOpen() throws {
        let packed = try DIDCommEnvelope.pack(Array("{}".utf8), for: [self.wallet.verkeyBase58], from: self.herald)
        let envelope = try #require(try JSONSerialization.jsonObject(with: Data(packed)) as? [String: String])
        let iv = try #require(envelope["iv"])
        #expect(Self.base64URL(iv)?.count == 12)
        #expect(try Self.protectedHeader(envelope)["enc"] as? String == "xchacha20poly1305_ietf")
    }

    @Test(arguments: [0, 8, 16, 32])
    func anIVOfAnotherLengthIsRefusedNamingBoth(length: Int) throws {
        var envelope = try #require(try JSONSerialization.jsonObject(with: Data(Self.vectors.authcrypt.utf8)) as? [String: String])
        envelope["iv"] = Data(repeating: 7, count: length).base64EncodedString()
        let changed = try JSONSerialization.data(withJSONObject: envelope)
        #expect(throws: DIDCommError.malformed("the iv is \(length) bytes: 12 for ChaCha20-Poly1305 (as wallets pack) or 24 for XChaCha20-Poly1305")) {
            try DIDCommEnvelope.open(Array(changed), with: self.herald)
        }
    }

    static func base64URL(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard).map(Array.init)
    }

    static func protectedHeader(_ envelope: [String: String]) throws -> [String: Any] {
        let protected = try #require(envelope["protected"])
        let bytes = try #require(Self.base64URL(protected))
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func pyNaClAnoncryptOpensWithoutASender() throws {
        let opened = try DIDCommEnvelope.open(Array(Self.vectors.anoncrypt.utf8), with: self.herald)
        #expect(opened.message == Self.bytes(Self.vectors.message))
        #expect(opened.sender == nil)
    }

    @Test func heraldsEnvelopesOpenForTheirRecipientOnly() throws {
        let message = Array(#"{"@type":"https://didcomm.org/push-notifications-apns/1.0/ack","@id":"1"}"#.utf8)
        for sender in [Optional(self.herald), nil] {
            let packed = try DIDCommEnvelope.pack(message, for: [self.wallet.verkeyBase58], from: sender)
            let opened = try DIDCommEnvelope.open(packed, with: self.wallet)
            #expect(opened.message == message)
            #expect(opened.sender == sender?.verkeyBase58)
            #expect(throws: DIDCommError.notForThisKey) { try DIDCommEnvelope.open(packed, with: self.herald) }
        }
    }

    @Test(arguments: ["ciphertext", "tag", "iv", "protected"])
    func tamperedEnvelopesAreRefused(field: String) throws {
        var envelope = try #require(try JSONSerialization.jsonObject(with: Data(Self.vectors.authcrypt.utf8)) as? [String: String])
        var value = Array(try #require(envelope[field]).utf8)
        // Flip one base64url character in the middle to another of the alphabet.
        let middle = value.count / 2
        value[middle] = value[middle] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        envelope[field] = String(decoding: value, as: UTF8.self)
        let tampered = try JSONSerialization.data(withJSONObject: envelope)
        #expect(throws: DIDCommError.self) { try DIDCommEnvelope.open(Array(tampered), with: self.herald) }
    }

    @Test func aChangedProtectedHeaderFailsTheContentsTag() throws {
        var envelope = try #require(try JSONSerialization.jsonObject(with: Data(Self.vectors.authcrypt.utf8)) as? [String: String])
        let protected = try #require(envelope["protected"])
        var text = protected.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        let decoded = try #require(Data(base64Encoded: text))
        var header = try #require(try JSONSerialization.jsonObject(with: decoded) as? [String: Any])
        // A harmless change that still names this key: only the associated data can catch it.
        header["typ"] = "JWM/1.1"
        let changed = try JSONSerialization.data(withJSONObject: header).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        envelope["protected"] = changed
        let tampered = try JSONSerialization.data(withJSONObject: envelope)
        #expect(throws: DIDCommError.decryption("the content's tag does not verify")) {
            try DIDCommEnvelope.open(Array(tampered), with: self.herald)
        }
    }

    @Test(arguments: ["", "[]", "{}", #"{"protected":"!!","iv":"","ciphertext":"","tag":""}"#])
    func malformedEnvelopesAreRefused(text: String) {
        #expect(throws: DIDCommError.self) { try DIDCommEnvelope.open(Array(text.utf8), with: self.herald) }
    }
}
