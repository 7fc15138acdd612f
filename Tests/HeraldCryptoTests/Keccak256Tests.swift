import HeraldCrypto
import Testing

@Suite struct Keccak256Tests {
    /// Published Keccak-256 values (Keccak team and Ethereum), confirmed with eth-hash.
    @Test(arguments: [
        ("", "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"),
        ("abc", "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"),
        (
            "The quick brown fox jumps over the lazy dog",
            "4d741b6f1eb29cb2a9b9911c82f56fa8d73b04959d3d9d222895df6c0b28aa15"
        ),
    ])
    func publishedVectors(input: String, digest: String) {
        #expect(hexString(Keccak256.hash(Array(input.utf8))) == digest)
    }

    @Test func isNotSHA3() {
        // SHA3-256("") is a7ffc6f8…; Ethereum's Keccak differs only in the padding byte.
        #expect(hexString(Keccak256.hash([])).hasPrefix("c5d24601"))
    }

    @Test func twoHundredBytesOfA3() {
        #expect(
            hexString(Keccak256.hash([UInt8](repeating: 0xA3, count: 200)))
                == "3a57666b048777f2c953dc4456f45a2588e1cb6f2da760122d530ac2ce607d4a"
        )
    }

    @Test func oneMillionTimesA() {
        #expect(
            hexString(Keccak256.hash([UInt8](repeating: 0x61, count: 1_000_000)))
                == "fadae6b49f129bbb812be8407b7b2894f34aecf6dbd1f9b0f0c7e9853098fc96"
        )
    }

    @Test func everyVectorMatches() {
        for vector in CryptoVectors.shared.keccak256 {
            #expect(hexString(Keccak256.hash(vector.bytes)) == vector.digest, "\(vector.name)")
        }
    }

    @Test func lengthsAroundTheRateMatch() {
        let names = Set(CryptoVectors.shared.keccak256.map(\.name))
        for length in [135, 136, 137, 271, 272, 273] {
            #expect(names.contains("\(length) counting bytes"))
        }
    }

    @Test func incrementalUpdatesEqualOneShot() {
        let input = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let expected = Keccak256.hash(input)
        for split in [0, 1, 7, 8, 9, 135, 136, 137, 500, 999, 1000] {
            var hasher = Keccak256()
            hasher.update(input[..<split])
            hasher.update(input[split...])
            #expect(hasher.finalize() == expected, "split at \(split)")
        }
        var byteByByte = Keccak256()
        for byte in input { byteByByte.update(CollectionOfOne(byte)) }
        #expect(byteByByte.finalize() == expected)
    }

    @Test func finalizeLeavesTheHasherUsable() {
        var hasher = Keccak256()
        hasher.update(Array("ab".utf8))
        _ = hasher.finalize()
        hasher.update(Array("c".utf8))
        #expect(hasher.finalize() == Keccak256.hash(Array("abc".utf8)))
    }

    @Test func acceptsNonContiguousSequences() {
        let input = Array("abc".utf8)
        #expect(Keccak256.hash(input.lazy.map { $0 }) == Keccak256.hash(input))
    }
}
