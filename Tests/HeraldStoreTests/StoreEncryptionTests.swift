import Foundation
import HeraldCore
import HeraldTesting
import Testing

@testable import HeraldStore

/// Registrations and log entries sealed at rest: no token in the file, the ring's older keys
/// still open, rotation re-seals, a value moved under another key does not open.
@Suite struct StoreEncryptionTests {
    static let oldKey = String(repeating: "11", count: 32)
    static let newKey = String(repeating: "22", count: 32)

    static func register(_ index: Int, token: String) -> RegistryCommand {
        .register(Registration(key: SyntheticCommands.key(subject: index, installation: 0), version: 1, device: Device(platform: .apns, token: token), attributes: Array("access-\(token)".utf8)))
    }

    static func fill(_ store: LocalStore, tokens: [String]) async throws {
        let positions = try await store.log.append(tokens.enumerated().map { Self.register($0.offset, token: $0.element) })
        try await store.view.apply(try await store.log.entries(from: 1, limit: positions.count))
    }

    static func fileContains(_ directory: String, _ needle: String) throws -> Bool {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/data.mdb"))
        return data.range(of: Data(needle.utf8)) != nil
    }

    @Test func cipherSealsOpensAndBindsTheContext() throws {
        let ring = try StoreCipher(text: "\(Self.newKey)\n\(Self.oldKey) # the previous key\n")
        let old = try StoreCipher(text: Self.oldKey)
        let sealed = try old.seal(Array("secret".utf8), context: [1])
        #expect(!sealed.contains(Array("secret".utf8)))
        #expect(try ring.open(sealed, context: [1]) == Array("secret".utf8), "an older key of the ring opens")
        #expect(!ring.isCurrent(sealed))
        #expect(ring.isCurrent(try ring.seal([], context: [])))
        #expect(throws: StoreError.self) { try ring.open(sealed, context: [2]) }
        var tampered = sealed
        tampered[tampered.count - 1] ^= 1
        #expect(throws: StoreError.self) { try ring.open(tampered, context: [1]) }
        #expect(throws: StoreError.self) { try StoreCipher(text: Self.newKey).open(sealed, context: [1]) }
        #expect(try ring.open([1, 2, 3], context: [1]) == [1, 2, 3], "a value from before encryption is read as it is")
        for bad in ["", "abc", String(repeating: "zz", count: 32), Self.newKey + "00"] {
            #expect(throws: StoreError.self) { try StoreCipher(text: bad) }
        }
        #expect("\(ring)" == "StoreCipher(redacted)")
    }

    @Test func noTokenReachesTheFileAndRotationReseals() async throws {
        try await withTemporaryDirectory { path in
            let tokens = (0..<50).map { "device-token-\($0)-" + String(repeating: "f", count: 40) }
            // Half written before encryption, half under the old key.
            var store = try LocalStore(path: path)
            try await Self.fill(store, tokens: Array(tokens[..<25]))
            try await store.close()
            store = try LocalStore(path: path, cipher: try StoreCipher(text: Self.oldKey))
            // A remembered answer naming a token, as gorush's idempotency keeps one.
            #expect(try await store.markers.insert([7], in: .answers, expiry: 2_000_000_000, now: 1, value: Array("answer-\(tokens[40])".utf8)))
            let more = try await store.log.append(tokens[25...].enumerated().map { Self.register(25 + $0.offset, token: $0.element) })
            try await store.view.apply(try await store.log.entries(from: more[0], limit: more.count))
            #expect(try store.view.allRecords().count == 50)
            try await store.close()

            store = try LocalStore(path: path, cipher: try StoreCipher(text: "\(Self.newKey),\(Self.oldKey)"))
            let before = try store.view.digest()
            let result = try await store.reseal(batch: 7)
            #expect(result.records == 50)
            #expect(result.logEntries == 50)
            #expect(result.markers == 1)
            #expect(try await store.reseal().records == 0, "nothing is left to re-seal")
            #expect(try store.view.digest() == before, "the digest is over plaintext, the same before and after")
            try await store.close()

            // The new key alone now opens everything; nothing in the file names a token.
            store = try LocalStore(path: path, cipher: try StoreCipher(text: Self.newKey))
            let records = try store.view.allRecords()
            #expect(Set(records.values.compactMap { $0.registration?.device.token }) == Set(tokens))
            #expect(try await store.log.entries(from: 1, limit: 100).count == 50)
            #expect(try store.markers.value(of: [7], in: .answers, now: 2) == Array("answer-\(tokens[40])".utf8))
            let verified = try await store.verify()
            #expect(verified.isConsistent, "\(verified)")
            // Pages replaced by re-sealing may keep old plaintext until reused; the compacted
            // copy `herald store rotate-key` swaps in has none.
            try FileManager.default.createDirectory(atPath: path + "/compacted", withIntermediateDirectories: false)
            try store.environment.compactCopy(to: path + "/compacted")
            try await store.close()
            #expect(try !Self.fileContains(path, tokens[30]), "a token sealed from the start never reaches the file")
            for token in [tokens[0], tokens[30], "access-\(tokens[10])", "answer-\(tokens[40])"] {
                #expect(try !Self.fileContains(path + "/compacted", token), "\(token) is in the compacted data.mdb")
            }
        }
    }

    @Test func aStoreSealedWithAnotherKeyDoesNotOpen() async throws {
        try await withTemporaryDirectory { path in
            let store = try LocalStore(path: path, cipher: try StoreCipher(text: Self.oldKey))
            try await Self.fill(store, tokens: ["t1"])
            try await store.close()
            let other = try LocalStore(path: path, cipher: try StoreCipher(text: Self.newKey))
            #expect(throws: StoreError.self) { _ = try other.view.allRecords() }
            try await other.close()
        }
    }
}
