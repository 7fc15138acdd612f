import HeraldCrypto
import Testing

@Suite struct ECIESTests {
    @Test func roundTrips() throws {
        let recipient = Secp256k1PrivateKey()
        for length in [0, 1, 15, 16, 17, 300] {
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
            let ciphertext = try ECIES.encrypt(message, to: recipient.publicKey)
            #expect(ciphertext.count == ECIES.overheadByteCount + length)
            #expect(ciphertext.first == 0x04)
            #expect(try ECIES.decrypt(ciphertext, using: recipient) == message)
        }
    }

    @Test func everyPythonCiphertextDecrypts() throws {
        for vector in CryptoVectors.shared.ecies {
            let recipient = try Secp256k1PrivateKey(rawRepresentation: hex(vector.recipientPrivate))
            #expect(hexString(recipient.publicKey.uncompressedRepresentation) == vector.recipientPublic)
            #expect(
                hexString(try ECIES.decrypt(hex(vector.ciphertext), using: recipient)) == vector.message,
                "\(vector.name)")
        }
    }

    @Test func heraldEncryptsThePythonBytesGivenTheSameEphemeralKeyAndIV() throws {
        for vector in CryptoVectors.shared.ecies {
            let ciphertext = try ECIES.encrypt(
                hex(vector.message),
                to: Secp256k1PublicKey(bytes: hex(vector.recipientPublic)),
                ephemeralKey: Secp256k1PrivateKey(rawRepresentation: hex(vector.ephemeralPrivate)),
                iv: hex(vector.iv)
            )
            #expect(hexString(ciphertext) == vector.ciphertext, "\(vector.name)")
        }
    }

    @Test func everyTamperedByteIsDetected() throws {
        let recipient = Secp256k1PrivateKey()
        let ciphertext = try ECIES.encrypt(Array("tamper with me".utf8), to: recipient.publicKey)
        for index in ciphertext.indices {
            var altered = ciphertext
            altered[index] ^= 0x01
            // A changed R is an invalid point or another shared secret; a changed IV, body or tag fails the MAC.
            #expect(throws: CryptoError.self, "byte \(index)") { try ECIES.decrypt(altered, using: recipient) }
        }
        var body = ciphertext
        body[ECIES.ephemeralKeyByteCount + ECIES.ivByteCount] ^= 0x01
        #expect(throws: CryptoError(.authenticationFailed, "")) { try ECIES.decrypt(body, using: recipient) }
    }

    @Test func theWrongRecipientFailsTheMAC() throws {
        let ciphertext = try ECIES.encrypt([1, 2, 3], to: Secp256k1PrivateKey().publicKey)
        #expect(throws: CryptoError(.authenticationFailed, "")) {
            try ECIES.decrypt(ciphertext, using: Secp256k1PrivateKey())
        }
    }

    @Test func shortCiphertextsAreInvalid() throws {
        let recipient = Secp256k1PrivateKey()
        let ciphertext = try ECIES.encrypt([], to: recipient.publicKey)
        #expect(ciphertext.count == 113)
        for length in [0, 1, 65, 98, 112] {
            #expect(throws: CryptoError(.invalidCiphertext, "")) {
                try ECIES.decrypt(ciphertext.prefix(length), using: recipient)
            }
        }
    }

    @Test func aCompressedEphemeralKeyIsRefused() throws {
        let recipient = Secp256k1PrivateKey()
        var ciphertext = try ECIES.encrypt([1, 2, 3], to: recipient.publicKey)
        ciphertext[0] = 0x02
        #expect(throws: CryptoError(.invalidPublicKey, "")) { try ECIES.decrypt(ciphertext, using: recipient) }
    }

    @Test func theIVMustBe16Bytes() {
        #expect(throws: CryptoError(.invalidNonce, "")) {
            try ECIES.encrypt([1], to: Secp256k1PrivateKey().publicKey, ephemeralKey: Secp256k1PrivateKey(), iv: [0])
        }
    }
}
