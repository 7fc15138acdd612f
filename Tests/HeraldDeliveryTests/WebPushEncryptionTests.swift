import Crypto
import Foundation
import HeraldDelivery
import Testing

/// The Web Push encryption (the provider's and the relay benchmark's) against RFC 8291 Appendix A and the relay page's `aesgcm`
/// vector (webpush-relay.md §8.1, §8.3): same keys and salt, same bytes.
@Suite struct WebPushEncryptionTests {
    static func bytes(_ base64URL: String) -> [UInt8] {
        var text = base64URL.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Array(Data(base64Encoded: text)!)
    }

    static let plaintext = bytes("V2hlbiBJIGdyb3cgdXAsIEkgd2FudCB0byBiZSBhIHdhdGVybWVsb24")
    static let sender = bytes("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")
    static let receiver = bytes("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4")
    static let salt = bytes("DGv6ra1nlYgDCS1FRnbzlw")
    static let auth = bytes("BTBZMqHH6r4Tts7J_aSIgg")

    @Test func aes128gcmIsRFC8291AppendixA() throws {
        let message = try WebPushEncryption.aes128gcm(
            Self.plaintext,
            receiver: try P256.KeyAgreement.PublicKey(x963Representation: Self.receiver),
            authSecret: Self.auth,
            sender: try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.sender),
            salt: Self.salt
        )
        #expect(message.body == Self.bytes(
            "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
        ))
        #expect(message.headers.map(\.0) == ["Content-Encoding"])
    }

    @Test func aesgcmIsTheRelayPagesVector() throws {
        let message = try WebPushEncryption.aesgcm(
            Self.plaintext,
            receiver: try P256.KeyAgreement.PublicKey(x963Representation: Self.receiver),
            authSecret: Self.auth,
            sender: try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.sender),
            salt: Self.salt
        )
        #expect(message.body == Self.bytes("4qwOLFm_mNy0vf1A8f3Bm6B5UD15y3aV_xZy14pixUhcPTIoZKHzq5i3dZ6PzqSMxBI_-VDUZ4jW04M"))
        #expect(message.headers.first { $0.0 == "Encryption" }?.1 == "salt=DGv6ra1nlYgDCS1FRnbzlw")
        #expect(message.headers.first { $0.0 == "Crypto-Key" }?.1 == "dh=BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8")
    }
}
