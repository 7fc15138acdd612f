import HeraldCrypto
import Testing

@Suite struct RecoverableSignatureTests {
    static let order = Secp256k1PrivateKeyTests.order

    /// status.md §12's grant: client key 1 over the 102-byte grant material.
    static let grantDigest = hex("d88a70bd0ce41f5c403b15cd59b3d37e77fea284f1c8d7bae3dc655e0a19db8e")
    static let grant = hex(
        "f3e18fa1ddea1b02c5b130fdd4fbd9e16865b4f7b6997554f9bacc49bde176ed"
            + "77544abd657fc2fe71490b25bc92611f017681353e3069a8c3a3f03c77d2d191" + "01"
    )

    @Test func statusGrantVector() throws {
        let clientCompressed = hex("0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
        let serverCompressed = hex("02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5")
        let material = clientCompressed + serverCompressed + Array("b6ae4fde-bb65-11ea-b3de-0242ac130004".utf8)
        #expect(material.count == 102)
        #expect(Keccak256.hash(material) == Self.grantDigest)

        let client = try Secp256k1PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 31) + [1])
        let signature = try client.signature(forDigest: Self.grantDigest)
        #expect(signature.rawRepresentation == Self.grant)
        #expect(signature.recoveryID == 1)
        #expect(try signature.recoverPublicKey(fromDigest: Self.grantDigest) == client.publicKey)
    }

    @Test func everyPythonSignatureRecoversAndHeraldSignsTheSameBytes() throws {
        for vector in CryptoVectors.shared.signatures {
            let expected = try Secp256k1PublicKey(bytes: hex(vector.uncompressed))
            let signature = try RecoverableSignature(rawRepresentation: hex(vector.signature))
            #expect(try signature.recoverPublicKey(fromDigest: hex(vector.digest)) == expected, "\(vector.name)")
            let key = try Secp256k1PrivateKey(rawRepresentation: hex(vector.private))
            #expect(try key.signature(forDigest: hex(vector.digest)) == signature, "\(vector.name)")
        }
    }

    @Test func highSIsAcceptedOnRecovery() throws {
        for vector in CryptoVectors.shared.signatures {
            let expected = try Secp256k1PublicKey(bytes: hex(vector.uncompressed))
            let highS = try RecoverableSignature(rawRepresentation: hex(vector.highS))
            #expect(highS.s.first! >= 0x80, "\(vector.name)")
            #expect(try highS.recoverPublicKey(fromDigest: hex(vector.digest)) == expected, "\(vector.name)")
        }
    }

    @Test func tamperedSignaturesDoNotRecoverTheSigner() throws {
        let client = try Secp256k1PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 31) + [1])
        for index in [0, 17, 31, 32, 50, 63] {
            var bytes = Self.grant
            bytes[index] ^= 0x01
            // A changed R or S either fails to recover or recovers someone else.
            if let signature = try? RecoverableSignature(rawRepresentation: bytes),
                let recovered = try? signature.recoverPublicKey(fromDigest: Self.grantDigest)
            {
                #expect(recovered != client.publicKey, "byte \(index)")
            }
        }
        var flippedV = Self.grant
        flippedV[64] = 0
        let otherParity = try RecoverableSignature(rawRepresentation: flippedV)
        #expect((try? otherParity.recoverPublicKey(fromDigest: Self.grantDigest)) != client.publicKey)

        var digest = Self.grantDigest
        digest[0] ^= 0x80
        let signature = try RecoverableSignature(rawRepresentation: Self.grant)
        #expect((try? signature.recoverPublicKey(fromDigest: digest)) != client.publicKey)
        #expect(!signature.isValid(forDigest: digest, publicKey: client.publicKey))
    }

    @Test(arguments: [4, 27, 28, 255])
    func recoveryIDsFromFourUpAreRejected(v: Int) {
        var bytes = Self.grant
        bytes[64] = UInt8(v)
        #expect(throws: CryptoError(.invalidSignature, "")) { try RecoverableSignature(rawRepresentation: bytes) }
    }

    @Test func recoveryIDsTwoAndThreeParse() throws {
        // go-ethereum passes V 0...3 to libsecp256k1; 2 and 3 mean R + n, which for this R is not on the curve
        // or recovers another key, but the signature itself is well-formed.
        for v: UInt8 in [2, 3] {
            var bytes = Self.grant
            bytes[64] = v
            let signature = try RecoverableSignature(rawRepresentation: bytes)
            #expect(signature.recoveryID == Int(v))
        }
    }

    @Test(arguments: [0, 64, 66, 130])
    func wrongLengthsAreRejected(length: Int) {
        let bytes = [UInt8](repeating: 0x01, count: length)
        #expect(throws: CryptoError(.invalidSignature, "")) { try RecoverableSignature(rawRepresentation: bytes) }
    }

    @Test func rOrSNotBelowTheOrderIsRejected() {
        let s = Array(Self.grant[32..<64])
        let r = Array(Self.grant[0..<32])
        for bytes in [Self.order + s + [0], r + Self.order + [0], [UInt8](repeating: 0xFF, count: 64) + [1]] {
            #expect(throws: CryptoError(.invalidSignature, "")) { try RecoverableSignature(rawRepresentation: bytes) }
        }
    }

    @Test func zeroROrSParsesButDoesNotRecover() throws {
        let zero = [UInt8](repeating: 0, count: 32)
        let r = Array(Self.grant[0..<32])
        let s = Array(Self.grant[32..<64])
        for bytes in [zero + s + [1], r + zero + [1]] {
            let signature = try RecoverableSignature(rawRepresentation: bytes)
            #expect(throws: CryptoError(.recoveryFailed, "")) {
                try signature.recoverPublicKey(fromDigest: Self.grantDigest)
            }
        }
    }

    @Test func recoveryNeedsA32ByteDigest() throws {
        let signature = try RecoverableSignature(rawRepresentation: Self.grant)
        #expect(throws: CryptoError(.invalidDigest, "")) { try signature.recoverPublicKey(fromDigest: [1, 2, 3]) }
    }

    @Test func componentsSliceTheRawBytes() throws {
        let signature = try RecoverableSignature(rawRepresentation: Self.grant)
        #expect(Array(signature.r) == Array(Self.grant[0..<32]))
        #expect(Array(signature.s) == Array(Self.grant[32..<64]))
        #expect(signature.recoveryID == 1)
    }
}
