import HeraldCrypto
import Testing

@Suite struct ECDHTests {
    static func secret(_ value: UInt8) throws -> Secp256k1PrivateKey {
        try Secp256k1PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 31) + [value])
    }

    @Test func isSymmetric() throws {
        for _ in 0..<8 {
            let a = Secp256k1PrivateKey()
            let b = Secp256k1PrivateKey()
            let ab = try ECDH.sharedSecret(privateKey: a, publicKey: b.publicKey)
            let ba = try ECDH.sharedSecret(privateKey: b, publicKey: a.publicKey)
            #expect(ab == ba)
            #expect(ab.count == 32)
        }
    }

    @Test func isTheRawXCoordinate() throws {
        // 1 · B = B, so the secret is B's X with no hashing.
        let b = Secp256k1PrivateKey()
        let shared = try ECDH.sharedSecret(privateKey: Self.secret(1), publicKey: b.publicKey)
        #expect(shared == Array(b.publicKey.x))
    }

    @Test func statusVectors() throws {
        // status.md §12: ECDH(client 1, server 2) and ECDH(client 1, contact 3).
        #expect(
            hexString(try ECDH.sharedSecret(privateKey: Self.secret(1), publicKey: Self.secret(2).publicKey))
                == "c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5"
        )
        #expect(
            hexString(try ECDH.sharedSecret(privateKey: Self.secret(1), publicKey: Self.secret(3).publicKey))
                == "f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9"
        )
    }

    @Test func everyPythonVectorMatchesBothWays() throws {
        for vector in CryptoVectors.shared.ecdh {
            let a = try Secp256k1PrivateKey(rawRepresentation: hex(vector.private))
            let b = try Secp256k1PrivateKey(rawRepresentation: hex(vector.otherPrivate))
            let bPublic = try Secp256k1PublicKey(bytes: hex(vector.public))
            #expect(
                hexString(try ECDH.sharedSecret(privateKey: a, publicKey: bPublic)) == vector.shared, "\(vector.name)")
            #expect(
                hexString(try ECDH.sharedSecret(privateKey: b, publicKey: a.publicKey)) == vector.shared,
                "\(vector.name)")
        }
    }
}
