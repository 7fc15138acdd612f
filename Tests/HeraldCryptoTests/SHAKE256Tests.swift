import HeraldCrypto
import Testing

@Suite struct SHAKE256Tests {
    /// Published SHAKE-256 values (FIPS 202 examples and status.md §12), confirmed with hashlib.
    @Test func emptyInput() {
        #expect(
            hexString(SHAKE256.hash([]))
                == "46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f"
                + "d75dc4ddd8c0f200cb05019d67b592f6fc821c49479ab48640292eacb3b7c4be"
        )
    }

    @Test func abc() {
        #expect(
            hexString(SHAKE256.hash(Array("abc".utf8)))
                == "483366601360a8771c6863080cc4114d8db44530f8f1e1ee4f94ea37e78b5739"
                + "d5a15bef186a5386c75744c0527e1faa9f8726e462a12a4feb06bd8801e751e4"
        )
    }

    @Test func twoHundredBytesOfA3() {
        #expect(
            hexString(SHAKE256.hash([UInt8](repeating: 0xA3, count: 200), outputByteCount: 32))
                == "cd8a920ed141aa0407a22d59288652e9d9f1a7ee0c1e7c1ca699424da84a904d"
        )
    }

    @Test func statusHashPublicKey() {
        // status.md §12: HashPublicKey(compressed key of secret 1), the client's query topic name.
        let compressed = hex("0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
        #expect(
            hexString(SHAKE256.hash(compressed))
                == "b9fc6bc4aa9fcfce676d2e93312a203da8da4bc414f6115fbd569fe4607a59b3"
                + "1efcc388c210496740d02196fdff2e02d03e953ccce3da69f593d44629a01c7e"
        )
    }

    @Test func everyVectorMatches() {
        for vector in CryptoVectors.shared.shake256 {
            let output = SHAKE256.hash(vector.bytes, outputByteCount: vector.outputLength ?? 64)
            #expect(hexString(output) == vector.output, "\(vector.name)")
        }
    }

    @Test func shorterOutputIsAPrefixOfLonger() {
        let input = Array("prefix".utf8)
        let long = SHAKE256.hash(input, outputByteCount: 500)
        for length in [0, 1, 64, 135, 136, 137, 272, 273] {
            #expect(SHAKE256.hash(input, outputByteCount: length) == Array(long.prefix(length)))
        }
    }

    @Test func incrementalUpdatesEqualOneShot() {
        let input = (0..<700).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let expected = SHAKE256.hash(input)
        for split in [0, 3, 8, 135, 136, 137, 699] {
            var hasher = SHAKE256()
            hasher.update(input[..<split])
            hasher.update(input[split...])
            #expect(hasher.finalize() == expected, "split at \(split)")
        }
    }
}
