import Foundation
import HeraldCore
import HeraldTesting
import Testing

@testable import HeraldStore

/// Snapshots of a store: taken beside a running store, installed whole or not at all, refused
/// when damaged, cut short or sealed under another key ring.
@Suite struct StoreSnapshotTests {
    static let key = String(repeating: "33", count: 32)

    /// A store at `path` holding `count` registrations applied from its own log, and its digest.
    static func makeStore(at path: String, count: Int, cipher: StoreCipher?) async throws -> (LocalStore, RegistryDigest) {
        let store = try LocalStore(path: path, cipher: cipher)
        try await store.view.claimSource("local")
        try await StoreEncryptionTests.fill(store, tokens: (0..<count).map { "token-\($0)-" + String(repeating: "a", count: 40) })
        return (store, try store.view.digest())
    }

    /// Through the open store's own environment, as a serving node writes one.
    static func snapshot(of store: LocalStore, into file: String) throws -> StoreSnapshot.Header {
        _ = FileManager.default.createFile(atPath: file, contents: nil)
        let output = try #require(FileHandle(forWritingAtPath: file))
        defer { try? output.close() }
        return try store.writeSnapshot(to: output, stagingDirectory: URL(fileURLWithPath: file).deletingLastPathComponent().path)
    }

    static func install(_ file: String, into directory: String, cipher: StoreCipher?) async throws -> StoreSnapshot.Header {
        let input = try #require(FileHandle(forReadingAtPath: file))
        defer { try? input.close() }
        return try await LocalStore.installSnapshot(from: input, into: directory, cipher: cipher)
    }

    @Test func aSnapshotOfARunningStoreInstallsAsTheSameView() async throws {
        try await withTemporaryDirectory { root in
            let cipher = try StoreCipher(text: Self.key)
            // Taken while the store is open and holds its lock, as a serving node's would be.
            let (source, digest) = try await Self.makeStore(at: root + "/a", count: 200, cipher: cipher)
            let header = try Self.snapshot(of: source, into: root + "/a.snapshot")
            try await source.close()
            #expect(header.appliedPosition == 200)
            #expect(header.source == "local")
            #expect(header.bytes > 0)
            let installed = try await Self.install(root + "/a.snapshot", into: root + "/b", cipher: cipher)
            #expect(installed == header)
            let restored = try LocalStore(path: root + "/b", cipher: cipher)
            #expect(try restored.view.digest() == digest)
            #expect(try await restored.verify().isConsistent, "the local log came with the view")
            #expect(!FileManager.default.fileExists(atPath: root + "/b/.restoring"))
            try await restored.close()
        }
    }

    @Test func aSnapshotReadInChunksOfAnySizeIsTheSame() async throws {
        try await withTemporaryDirectory { root in
            let (store, _) = try await Self.makeStore(at: root + "/a", count: 3, cipher: nil)
            let header = try Self.snapshot(of: store, into: root + "/a.snapshot")
            try await store.close()
            let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: root + "/a.snapshot")))
            for size in [1, 7, 4096, bytes.count] {
                let sink = root + "/sink-\(size)"
                _ = FileManager.default.createFile(atPath: sink, contents: nil)
                let output = try #require(FileHandle(forWritingAtPath: sink))
                var receiver = StoreSnapshot.Receiver(writingDataTo: output)
                var offset = 0
                while offset < bytes.count {
                    try receiver.consume(bytes[offset..<min(offset + size, bytes.count)])
                    offset += size
                }
                #expect(try receiver.finish() == header)
                try output.close()
                #expect(try FileManager.default.attributesOfItem(atPath: sink)[.size] as? Int == header.bytes)
            }
        }
    }

    @Test func aDamagedShortOrForeignSnapshotLeavesTheStoreAsItWas() async throws {
        try await withTemporaryDirectory { root in
            let cipher = try StoreCipher(text: Self.key)
            let (source, _) = try await Self.makeStore(at: root + "/a", count: 20, cipher: cipher)
            _ = try Self.snapshot(of: source, into: root + "/a.snapshot")
            try await source.close()
            // The store the bad snapshots must not replace.
            let (target, digest) = try await Self.makeStore(at: root + "/b", count: 5, cipher: cipher)
            try await target.close()
            let good = try Data(contentsOf: URL(fileURLWithPath: root + "/a.snapshot"))
            var flipped = good
            flipped[flipped.count / 2] ^= 0x01
            let cases: [(String, Data, StoreCipher?, String)] = [
                ("flipped", flipped, cipher, "checksum does not match"),
                ("short", good.prefix(good.count - 100), cipher, "ends early"),
                ("foreign", Data("GET / HTTP/1.1\r\n".utf8), cipher, "not a Herald store snapshot"),
                ("wrong key", good, try StoreCipher(text: String(repeating: "44", count: 32)), "key ring"),
            ]
            for (name, data, ring, message) in cases {
                let file = root + "/\(name).snapshot"
                try data.write(to: URL(fileURLWithPath: file))
                let error = try await #require(throws: StoreError.self, "\(name)") { try await Self.install(file, into: root + "/b", cipher: ring) }
                #expect(error.message.contains(message), "\(name): \(error.message)")
                let store = try LocalStore(path: root + "/b", cipher: cipher)
                #expect(try store.view.digest() == digest, "\(name) left the store as it was")
                try await store.close()
                #expect(!FileManager.default.fileExists(atPath: root + "/b/.restoring"))
            }
        }
    }

    @Test func noInstallIntoAStoreANodeHasOpen() async throws {
        try await withTemporaryDirectory { root in
            let (store, _) = try await Self.makeStore(at: root + "/a", count: 2, cipher: nil)
            _ = try Self.snapshot(of: store, into: root + "/a.snapshot")
            let error = try await #require(throws: StoreError.self) { try await Self.install(root + "/a.snapshot", into: root + "/a", cipher: nil) }
            #expect(error.code == .locked)
            try await store.close()
        }
    }
}
