import CSecp256k1
import Testing

@Suite struct CSecp256k1Tests {
    /// The compressed generator point G, i.e. the public key of secret key 1.
    static let generator: [UInt8] = [
        0x02, 0x79, 0xBE, 0x66, 0x7E, 0xF9, 0xDC, 0xBB, 0xAC, 0x55, 0xA0, 0x62, 0x95, 0xCE, 0x87, 0x0B, 0x07,
        0x02, 0x9B, 0xFC, 0xDB, 0x2D, 0xCE, 0x28, 0xD9, 0x59, 0xF2, 0x81, 0x5B, 0x16, 0xF8, 0x17, 0x98,
    ]

    func publicKey(_ context: OpaquePointer, secret: [UInt8]) -> [UInt8]? {
        var pubkey = secp256k1_pubkey()
        guard secp256k1_ec_pubkey_create(context, &pubkey, secret) == 1 else { return nil }
        var output = [UInt8](repeating: 0, count: 33)
        var length = 33
        secp256k1_ec_pubkey_serialize(context, &output, &length, &pubkey, UInt32(SECP256K1_EC_COMPRESSED))
        return output
    }

    @Test func secretKeyOneGivesTheGenerator() throws {
        let context = try #require(secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE)))
        defer { secp256k1_context_destroy(context) }
        var one = [UInt8](repeating: 0, count: 32)
        one[31] = 1
        #expect(publicKey(context, secret: one) == Self.generator)
    }

    @Test func recoverableSignatureRecoversTheSigner() throws {
        let context = try #require(secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE)))
        defer { secp256k1_context_destroy(context) }
        let secret = [UInt8](repeating: 0x11, count: 32)
        let digest = [UInt8](repeating: 0x42, count: 32)
        var signature = secp256k1_ecdsa_recoverable_signature()
        #expect(secp256k1_ecdsa_sign_recoverable(context, &signature, digest, secret, nil, nil) == 1)
        var recovered = secp256k1_pubkey()
        #expect(secp256k1_ecdsa_recover(context, &recovered, &signature, digest) == 1)
        var output = [UInt8](repeating: 0, count: 33)
        var length = 33
        secp256k1_ec_pubkey_serialize(context, &output, &length, &recovered, UInt32(SECP256K1_EC_COMPRESSED))
        #expect(output == publicKey(context, secret: secret))
    }

    @Test func ecdhIsSymmetric() throws {
        let context = try #require(secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE)))
        defer { secp256k1_context_destroy(context) }
        let a = [UInt8](repeating: 0x21, count: 32)
        let b = [UInt8](repeating: 0x37, count: 32)
        func shared(_ secret: [UInt8], _ otherSecret: [UInt8]) -> [UInt8] {
            var other = secp256k1_pubkey()
            _ = secp256k1_ec_pubkey_create(context, &other, otherSecret)
            var output = [UInt8](repeating: 0, count: 32)
            _ = secp256k1_ecdh(context, &output, &other, secret, nil, nil)
            return output
        }
        let ab = shared(a, b)
        #expect(ab == shared(b, a))
        #expect(ab != [UInt8](repeating: 0, count: 32))
    }
}
