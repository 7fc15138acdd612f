import ArgumentParser
import Foundation
import HeraldConfig
import HeraldStore
import Logging

extension Herald {
    struct Store: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Inspect and check a node's LMDB store.",
            subcommands: [Verify.self, Snapshot.self, Restore.self, RotateKey.self]
        )
    }
}

extension Herald.Store {
    struct Location: ParsableArguments {
        @Option(name: .customLong("path"), help: "The store directory (store.path).")
        var path: String = "./herald-data"

        @Option(help: "The key ring file (store.encryption-key-file); default <path>/store.key. HERALD_STORE_ENCRYPTION_KEY is read when set.")
        var keyFile: String?

        func checkStore() throws {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: self.path + "/data.mdb", isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw ValidationError("no Herald store at \(self.path) (no data.mdb there)")
            }
        }

        var keyFilePath: String { self.keyFile ?? self.path + "/store.key" }

        /// The key ring, as `herald serve` finds it; `nil` for a store from before encryption.
        func cipher() throws -> StoreCipher? {
            if let text = ProcessInfo.processInfo.environment["HERALD_STORE_ENCRYPTION_KEY"], self.keyFile == nil {
                return try StoreCipher(text: text)
            }
            guard self.keyFile != nil || FileManager.default.fileExists(atPath: self.keyFilePath) else { return nil }
            return try StoreCipher(text: try ConfigurationFile.read(self.keyFilePath, key: "--key-file"))
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check that the command log is contiguous and the view equals a replay of it.",
            discussion: "Reads the whole store; run it on a stopped node or a copy. Exits 1 when inconsistent."
        )

        @OptionGroup var location: Location

        func run() async throws {
            try self.location.checkStore()
            let store = try LocalStore(path: self.location.path, cipher: try self.location.cipher())
            let result = try await store.verify()
            try await store.close()
            print(result)
            if !result.isConsistent { throw ExitCode(1) }
        }
    }

    struct Snapshot: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a snapshot of the store to a file: a backup, or the start of another node.",
            discussion: """
                A compacted copy of the store taken in one read transaction, so it may run beside \
                a serving node (its writers never wait), tagged with the view's applied log position \
                and the log it follows, and closed by a SHA-256 checksum. Registrations stay sealed \
                under the store's key ring: keep the key file with the snapshot, apart from it.
                """
        )

        @OptionGroup var location: Location

        @Option(help: "The snapshot file to write; it must not exist.")
        var out: String

        func run() async throws {
            try self.location.checkStore()
            guard !FileManager.default.fileExists(atPath: self.out) else { throw ValidationError("\(self.out) exists; choose a new file") }
            let temporary = self.out + ".partial"
            guard FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o600]),
                let output = FileHandle(forWritingAtPath: temporary)
            else {
                throw ValidationError("cannot create \(temporary)")
            }
            let header: StoreSnapshot.Header
            do {
                defer { try? output.close() }
                let directory = URL(fileURLWithPath: self.out).deletingLastPathComponent().path
                header = try LocalStore.writeSnapshot(ofStoreAt: self.location.path, to: output, stagingDirectory: directory)
                try output.synchronize()
            } catch {
                try? FileManager.default.removeItem(atPath: temporary)
                throw error
            }
            // Only a whole snapshot ever has the name asked for.
            guard rename(temporary, self.out) == 0 else { throw ValidationError("cannot rename \(temporary) to \(self.out): \(String(cString: strerror(errno)))") }
            print("wrote \(self.out): applied position \(header.appliedPosition), log \(header.source ?? "none yet"), \(header.bytes) bytes of data")
        }
    }

    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the store with a snapshot written by `herald store snapshot`.",
            discussion: """
                Run it on the stopped node. The snapshot is checked (checksum, its tags, every \
                registration opening under this node's key ring) before it replaces data.mdb in one \
                rename, so an interrupted restore leaves the old store. A cluster member then follows \
                the log from the snapshot's position; alone, the node goes on from it.
                """
        )

        @OptionGroup var location: Location

        @Argument(help: "The snapshot file.")
        var file: String

        func run() async throws {
            guard let input = FileHandle(forReadingAtPath: self.file) else { throw ValidationError("cannot read \(self.file)") }
            defer { try? input.close() }
            let header = try await LocalStore.installSnapshot(from: input, into: self.location.path, cipher: try self.location.cipher())
            print("restored \(self.location.path) from \(self.file): applied position \(header.appliedPosition), log \(header.source ?? "none yet"), taken \(header.createdAt)")
        }
    }

    struct RotateKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-key",
            abstract: "Re-seal the store under the first key of its key ring.",
            discussion: """
                Put the new key first in the key file (or pass --generate to have one written \
                there), keeping the older ones after it, then run this on the stopped node: every \
                registration and local log entry not sealed under the first key (sealed under an \
                older one, or written before encryption) is re-sealed. Alone, the older keys may \
                then be removed from the file. In a cluster, run it on every node with the same \
                ring, and keep the older keys until etcd has compacted the entries they sealed.
                """
        )

        @OptionGroup var location: Location

        @Flag(help: "Write a new random key first in the key file before re-sealing.")
        var generate = false

        func run() async throws {
            try self.location.checkStore()
            if self.generate {
                guard self.location.keyFile != nil || ProcessInfo.processInfo.environment["HERALD_STORE_ENCRYPTION_KEY"] == nil else {
                    throw ValidationError("HERALD_STORE_ENCRYPTION_KEY holds the key ring: put the new key first there instead of --generate")
                }
                let path = self.location.keyFilePath
                let old = FileManager.default.fileExists(atPath: path) ? try ConfigurationFile.read(path, key: "--key-file") : ""
                let temporary = path + ".new"
                try? FileManager.default.removeItem(atPath: temporary)
                try SecretFile.create(temporary, contents: Array((StoreCipher.newKeyText() + old).utf8))
                guard rename(temporary, path) == 0 else { throw ValidationError("cannot replace \(path): \(String(cString: strerror(errno)))") }
                SecretFile.syncDirectory(of: path)
            }
            guard let cipher = try self.location.cipher() else {
                throw ValidationError("no key ring: \(self.location.keyFilePath) does not exist (pass --generate to create one)")
            }
            let store = try LocalStore(path: self.location.path, cipher: cipher)
            let result = try await store.reseal()
            // The pushes the node acknowledged and has not delivered are sealed too.
            let journal = try LMDBWorkJournal(storePath: self.location.path, cipher: cipher, logger: Logger(label: "herald.store"))
            let queued = try await journal.reseal()
            try await journal.close()
            // LMDB leaves replaced pages in the file until it reuses them: a compacted copy takes
            // the old ciphertexts (or plaintexts, for a store from before encryption) away.
            let compacted = self.location.path + "/.compacting"
            try? FileManager.default.removeItem(atPath: compacted)
            try FileManager.default.createDirectory(atPath: compacted, withIntermediateDirectories: false)
            // Swapped in while the store is still open, so its lock keeps a starting node out
            // until the compacted file is in place; nothing writes after the copy.
            do {
                try store.environment.compactCopy(to: compacted)
                try Self.sync(compacted + "/data.mdb")
                guard rename(compacted + "/data.mdb", self.location.path + "/data.mdb") == 0 else {
                    throw ValidationError("cannot replace \(self.location.path)/data.mdb with its compacted copy: \(String(cString: strerror(errno)))")
                }
                SecretFile.syncDirectory(of: self.location.path + "/data.mdb")
            } catch {
                try? await store.close()
                try? FileManager.default.removeItem(atPath: compacted)
                throw error
            }
            try await store.close()
            try? FileManager.default.removeItem(atPath: compacted)
            print("\(result), \(queued) queued pushes and feedback events; every value is now sealed under key \(cipher.keyID), and the store is compacted")
        }

        private static func sync(_ path: String) throws {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw ValidationError("cannot open \(path): \(String(cString: strerror(errno)))") }
            defer { close(descriptor) }
            guard fsync(descriptor) == 0 else { throw ValidationError("cannot sync \(path): \(String(cString: strerror(errno)))") }
        }
    }
}
