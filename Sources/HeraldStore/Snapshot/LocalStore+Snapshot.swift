public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LocalStore {
    /// Writes a snapshot of the store in `directory` to `output`: a compacted copy taken in one
    /// read transaction (the node may be running; its writers never wait), tagged with the copy's
    /// own applied position and log source. The copy is staged in `stagingDirectory` (beside the
    /// output, so on the same disk) and removed after.
    public static func writeSnapshot(ofStoreAt directory: String, to output: FileHandle, stagingDirectory: String) throws -> StoreSnapshot.Header {
        try Self.writeSnapshot(to: output, stagingDirectory: stagingDirectory) { staging in
            try LMDBEnvironment.compactCopy(ofStoreAt: directory, to: staging)
        }
    }

    /// Writes a snapshot of this open store to `output`, as `writeSnapshot(ofStoreAt:…)` does for
    /// a store another process has open: LMDB must not be opened twice in one process, so this
    /// copies through the store's own environment.
    public func writeSnapshot(to output: FileHandle, stagingDirectory: String) throws -> StoreSnapshot.Header {
        try Self.writeSnapshot(to: output, stagingDirectory: stagingDirectory) { staging in
            try self.environment.compactCopy(to: staging)
        }
    }

    /// Has `copy` write a compacted copy into a staging directory, tags it from the copy itself
    /// (so the tags are the copy's, whatever was written since), and writes the snapshot.
    private static func writeSnapshot(to output: FileHandle, stagingDirectory: String, copy: (String) throws -> Void) throws -> StoreSnapshot.Header {
        let staging = stagingDirectory + "/.herald-snapshot-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: staging) }
        try copy(staging)
        let (applied, source) = try Self.tags(ofStoreAt: staging)
        let dataFile = staging + "/data.mdb"
        let bytes = try FileManager.default.attributesOfItem(atPath: dataFile)[.size] as? Int ?? 0
        let header = StoreSnapshot.Header(appliedPosition: applied, source: source, bytes: bytes, createdAt: Date())
        try StoreSnapshot.write(header: header, dataFile: dataFile, to: output)
        return header
    }

    /// Installs the snapshot read from `input` as the store in `directory`; see
    /// `installSnapshot(into:cipher:reading:)`.
    @discardableResult
    public static func installSnapshot(from input: FileHandle, into directory: String, cipher: StoreCipher?) async throws -> StoreSnapshot.Header {
        try await Self.installSnapshot(into: directory, cipher: cipher) {
            try input.read(upToCount: StoreSnapshot.chunkSize).map(Array.init)
        }
    }

    /// Installs the snapshot whose bytes `next` returns, chunk by chunk until `nil`, as the store
    /// in `directory`, which no node may have open (its lock is taken for the whole install).
    /// The data file is received into a staging directory inside `directory`, checked (checksum,
    /// the tags it claims, every registration opening under `cipher`), synced, and only then
    /// renamed over `data.mdb`: a crash at any moment leaves the old store or the new one, never
    /// part of one. `received` hears the bytes read so far.
    @discardableResult
    public static func installSnapshot(
        into directory: String,
        cipher: StoreCipher?,
        received: (Int) -> Void = { _ in },
        reading next: () async throws -> [UInt8]?
    ) async throws -> StoreSnapshot.Header {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw StoreError(.lmdb, "cannot create store directory \(directory): \(String(cString: strerror(errno)))")
        }
        let lock = try StoreDirectoryLock(directory: directory)
        defer { lock.release() }
        // Left by an install that crashed: it never replaced anything.
        let staging = directory + "/.restoring"
        try? FileManager.default.removeItem(atPath: staging)
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: staging) }
        let dataFile = staging + "/data.mdb"
        guard FileManager.default.createFile(atPath: dataFile, contents: nil, attributes: [.posixPermissions: 0o600]),
            let output = FileHandle(forWritingAtPath: dataFile)
        else {
            throw StoreError(.lmdb, "cannot create \(dataFile)")
        }
        let header: StoreSnapshot.Header
        do {
            defer { try? output.close() }
            var receiver = StoreSnapshot.Receiver(writingDataTo: output)
            var total = 0
            while let chunk = try await next() {
                try receiver.consume(chunk)
                total += chunk.count
                received(total)
            }
            header = try receiver.finish()
            try output.synchronize()
        }
        try Self.check(header, ofStoreAt: staging, cipher: cipher)
        guard rename(dataFile, directory + "/data.mdb") == 0 else {
            throw StoreError(.lmdb, "cannot move the snapshot into \(directory): \(String(cString: strerror(errno)))")
        }
        Self.syncDirectory(directory)
        return header
    }

    /// The applied position and log source recorded in the store at `directory`.
    static func tags(ofStoreAt directory: String) throws -> (applied: LogPosition, source: String?) {
        let store = try LocalStore(path: directory)
        defer { store.environment.close() }
        return (try store.view.appliedPosition(), try store.view.source())
    }

    /// A received data file is what its header says, and its registrations open under `cipher`.
    private static func check(_ header: StoreSnapshot.Header, ofStoreAt staging: String, cipher: StoreCipher?) throws {
        let store = try LocalStore(path: staging, cipher: cipher)
        defer { store.environment.close() }
        let applied = try store.view.appliedPosition()
        let source = try store.view.source()
        guard applied == header.appliedPosition, source == header.source else {
            throw StoreError(
                .corrupt,
                "the snapshot's data (applied position \(applied), log \(source ?? "none")) is not what its header says (\(header.appliedPosition), \(header.source ?? "none"))"
            )
        }
        do {
            _ = try store.view.digest()
        } catch {
            throw StoreError(.corrupt, "the snapshot's registrations do not open with this node's key ring (store.encryption-key-file): \(error)")
        }
    }

    private static func syncDirectory(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        _ = Glibc.close(descriptor)
    }
}
