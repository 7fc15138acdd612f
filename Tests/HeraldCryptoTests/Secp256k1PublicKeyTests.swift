import HeraldCrypto
import Testing

@Suite struct Secp256k1PublicKeyTests {
    static let generatorCompressed = hex("0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
    static let generatorUncompressed = hex(
        "0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
            + "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"
    )

    @Test func compressedAndUncompressedFormsAreTheSameKey() throws {
        let compressed = try Secp256k1PublicKey(bytes: Self.generatorCompressed)
        let uncompressed = try Secp256k1PublicKey(bytes: Self.generatorUncompressed)
        #expect(compressed == uncompressed)
        #expect(compressed.hashValue == uncompressed.hashValue)
        #expect(compressed.compressedRepresentation == Self.generatorCompressed)
        #expect(compressed.uncompressedRepresentation == Self.generatorUncompressed)
        #expect(Array(compressed.x) == Array(Self.generatorCompressed.dropFirst()))
        #expect(Array(compressed.y) == Array(Self.generatorUncompressed.suffix(32)))
    }

    @Test func everyVectorKeyRoundTrips() throws {
        for vector in CryptoVectors.shared.keys {
            let fromCompressed = try Secp256k1PublicKey(bytes: hex(vector.compressed))
            let fromUncompressed = try Secp256k1PublicKey(bytes: hex(vector.uncompressed))
            #expect(fromCompressed == fromUncompressed, "\(vector.name)")
            #expect(hexString(fromUncompressed.compressedRepresentation) == vector.compressed, "\(vector.name)")
            #expect(hexString(fromCompressed.uncompressedRepresentation) == vector.uncompressed, "\(vector.name)")
        }
    }

    @Test func descriptionIsTheStatusKeyString() throws {
        let key = try Secp256k1PublicKey(bytes: Self.generatorCompressed)
        #expect(key.description == "0x" + hexString(Self.generatorUncompressed))
    }

    @Test(arguments: [0, 1, 32, 34, 64, 66])
    func wrongLengthsAreRejected(length: Int) {
        let bytes = [0x02] + [UInt8](repeating: 0x11, count: max(0, length - 1))
        #expect(throws: CryptoError(.invalidPublicKey, "")) {
            try Secp256k1PublicKey(bytes: bytes.prefix(length))
        }
    }

    @Test func wrongPrefixesAreRejected() {
        var compressedAs04 = Self.generatorCompressed
        compressedAs04[0] = 0x04
        var uncompressedAs02 = Self.generatorUncompressed
        uncompressedAs02[0] = 0x02
        var hybrid = Self.generatorUncompressed
        hybrid[0] = 0x06  // libsecp256k1 would take the hybrid form (Y even); go-ethereum does not.
        var zeroPrefix = Self.generatorCompressed
        zeroPrefix[0] = 0x00
        for bytes in [compressedAs04, uncompressedAs02, hybrid, zeroPrefix] {
            #expect(throws: CryptoError(.invalidPublicKey, "")) { try Secp256k1PublicKey(bytes: bytes) }
        }
    }

    @Test func pointsOffTheCurveAreRejected() {
        var wrongY = Self.generatorUncompressed
        wrongY[64] ^= 0x01
        // X ≥ p is not a field element.
        let xTooLarge = [0x02] + [UInt8](repeating: 0xFF, count: 32)
        let allZero = [UInt8](repeating: 0, count: 65)
        for bytes in [wrongY, xTooLarge, allZero] {
            #expect(throws: CryptoError(.invalidPublicKey, "")) { try Secp256k1PublicKey(bytes: bytes) }
        }
    }
}
