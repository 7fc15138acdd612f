import HeraldCrypto
import Testing

@Suite struct Secp256k1PrivateKeyTests {
    static let order = hex("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")

    @Test func secretOneGivesTheGenerator() throws {
        let key = try Secp256k1PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 31) + [1])
        #expect(key.publicKey.compressedRepresentation == Secp256k1PublicKeyTests.generatorCompressed)
    }

    @Test func statusVectorKeys() throws {
        // status.md §12: secrets 2 and 3.
        let server = try Secp256k1PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 31) + [2])
        #expect(
            hexString(server.publicKey.compressedRepresentation)
                == "02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5"
        )
    }

    @Test func everyVectorKeyDerivesItsPublicKey() throws {
        for vector in CryptoVectors.shared.keys {
            let key = try Secp256k1PrivateKey(rawRepresentation: hex(vector.private))
            #expect(hexString(key.publicKey.compressedRepresentation) == vector.compressed, "\(vector.name)")
            #expect(hexString(key.publicKey.uncompressedRepresentation) == vector.uncompressed, "\(vector.name)")
            #expect(hexString(key.rawRepresentation) == vector.private)
        }
    }

    @Test func outOfRangeSecretsAreRejected() {
        var aboveOrder = Self.order
        aboveOrder[31] += 1
        let invalid: [[UInt8]] = [
            [UInt8](repeating: 0, count: 32),
            Self.order,
            aboveOrder,
            [UInt8](repeating: 0xFF, count: 32),
            [UInt8](repeating: 1, count: 31),
            [UInt8](repeating: 1, count: 33),
            [],
        ]
        for bytes in invalid {
            #expect(throws: CryptoError(.invalidPrivateKey, "")) { try Secp256k1PrivateKey(rawRepresentation: bytes) }
        }
    }

    @Test func orderMinusOneIsValid() throws {
        var below = Self.order
        below[31] -= 1
        let key = try Secp256k1PrivateKey(rawRepresentation: below)
        // (n − 1)·G = −G: same X as G, odd Y.
        #expect(
            key.publicKey.compressedRepresentation == [0x03] + Secp256k1PublicKeyTests.generatorCompressed.dropFirst())
    }

    @Test func randomKeysAreValidAndDistinct() throws {
        let keys = (0..<16).map { _ in Secp256k1PrivateKey() }
        #expect(Set(keys.map(\.rawRepresentation)).count == keys.count)
        for key in keys {
            #expect(try Secp256k1PrivateKey(rawRepresentation: key.rawRepresentation).publicKey == key.publicKey)
        }
    }

    @Test func descriptionHidesTheSecret() {
        let key = Secp256k1PrivateKey()
        #expect(!String(describing: key).contains(hexString(key.rawRepresentation)))
        #expect(!"\(key)".contains(hexString(key.rawRepresentation.prefix(4))))
    }

    @Test func signingRecoversTheSigner() throws {
        for _ in 0..<8 {
            let key = Secp256k1PrivateKey()
            let digest = Keccak256.hash(key.rawRepresentation)
            let signature = try key.signature(forDigest: digest)
            #expect(try signature.recoverPublicKey(fromDigest: digest) == key.publicKey)
            #expect(signature.isValid(forDigest: digest, publicKey: key.publicKey))
            #expect(signature.recoveryID == 0 || signature.recoveryID == 1)
        }
    }

    @Test func signaturesAreDeterministicAndLowS() throws {
        let key = Secp256k1PrivateKey()
        let digest = Keccak256.hash(Array("deterministic".utf8))
        let first = try key.signature(forDigest: digest)
        let second = try key.signature(forDigest: digest)
        #expect(first == second)
        // S ≤ n/2: the top byte of n/2 is 0x7f.
        for _ in 0..<32 {
            let signature = try Secp256k1PrivateKey().signature(forDigest: digest)
            #expect(signature.s.first! <= 0x7F)
        }
    }

    @Test func theSharedContextServesConcurrentTasks() async throws {
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let key = Secp256k1PrivateKey()
                    let digest = Keccak256.hash(Array("task \(index)".utf8))
                    guard let signature = try? key.signature(forDigest: digest) else { return false }
                    return signature.isValid(forDigest: digest, publicKey: key.publicKey)
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0 })
    }

    @Test(arguments: [0, 31, 33, 64])
    func digestsMustBe32Bytes(length: Int) {
        let key = Secp256k1PrivateKey()
        #expect(throws: CryptoError(.invalidDigest, "")) {
            try key.signature(forDigest: [UInt8](repeating: 7, count: length))
        }
    }
}
