import HeraldCrypto
import Testing

@Suite struct AESGCMFrameTests {
    static let statusKey = hex("c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5")
    static let statusFrame = hex("000102030405060708090a0bb275704e2ca849b204f17ae0f215726c8721")

    @Test func statusRegistrationVector() throws {
        let nonce = Array(0..<12 as Range<UInt8>)
        #expect(try AESGCMFrame.seal([0x08, 0x01], key: Self.statusKey, nonce: nonce) == Self.statusFrame)
        #expect(try AESGCMFrame.open(Self.statusFrame, key: Self.statusKey) == [0x08, 0x01])
    }

    @Test func everyPythonVectorSealsAndOpens() throws {
        for vector in CryptoVectors.shared.aesGCM {
            let sealed = try AESGCMFrame.seal(hex(vector.plaintext), key: hex(vector.key), nonce: hex(vector.nonce))
            #expect(hexString(sealed) == vector.frame, "\(vector.name)")
            #expect(hexString(try AESGCMFrame.open(hex(vector.frame), key: hex(vector.key))) == vector.plaintext)
        }
    }

    @Test func roundTripsWithRandomNonces() throws {
        let key = Array(Keccak256.hash(Array("key".utf8)))
        let plaintext = Array("a push notification".utf8)
        let first = try AESGCMFrame.seal(plaintext, key: key)
        let second = try AESGCMFrame.seal(plaintext, key: key)
        #expect(first.count == 12 + plaintext.count + 16)
        #expect(first.prefix(12) != second.prefix(12))
        #expect(try AESGCMFrame.open(first, key: key) == plaintext)
        #expect(try AESGCMFrame.open(second, key: key) == plaintext)
    }

    @Test func everyTamperedByteFailsToOpen() {
        for index in Self.statusFrame.indices {
            var frame = Self.statusFrame
            frame[index] ^= 0x20
            #expect(throws: CryptoError(.authenticationFailed, ""), "byte \(index)") {
                try AESGCMFrame.open(frame, key: Self.statusKey)
            }
        }
    }

    @Test func theWrongKeyFailsToOpen() {
        var key = Self.statusKey
        key[0] ^= 1
        #expect(throws: CryptoError(.authenticationFailed, "")) { try AESGCMFrame.open(Self.statusFrame, key: key) }
    }

    @Test func truncatedFramesAreInvalid() {
        for length in [0, 11, 12, 27] {
            #expect(throws: CryptoError(.invalidCiphertext, "")) {
                try AESGCMFrame.open(Self.statusFrame.prefix(length), key: Self.statusKey)
            }
        }
        // 28 bytes is a well-formed frame of an empty plaintext, so a cut there is a tag failure.
        #expect(throws: CryptoError(.authenticationFailed, "")) {
            try AESGCMFrame.open(Self.statusFrame.prefix(28), key: Self.statusKey)
        }
    }

    @Test func keyAndNonceLengthsAreChecked() {
        #expect(throws: CryptoError(.invalidSymmetricKey, "")) {
            try AESGCMFrame.seal([1], key: [UInt8](repeating: 1, count: 31))
        }
        #expect(throws: CryptoError(.invalidSymmetricKey, "")) { try AESGCMFrame.open(Self.statusFrame, key: []) }
        #expect(throws: CryptoError(.invalidNonce, "")) {
            try AESGCMFrame.seal([1], key: Self.statusKey, nonce: [UInt8](repeating: 0, count: 16))
        }
    }
}
