import Crypto
public import Foundation

/// A snapshot of a node's store: a consistent, compacted copy of its LMDB data file, tagged with
/// what a node installing it needs to go on from there.
///
/// One format on disk and on the wire, written and read in one pass with bounded memory:
///
///     herald-snapshot 1\n
///     {"appliedPosition":…,"source":"…","bytes":…,"createdAt":"…"}\n     (the header, one line)
///     `bytes` bytes of the LMDB data file
///     sha256 <64 hex digits>\n                                          (over everything above)
///
/// The checksum comes last so a writer streams the file as it reads it; a reader holds nothing
/// back and installs only once the trailer matched.
public enum StoreSnapshot {
    static let magic = Array("herald-snapshot 1\n".utf8)
    static let chunkSize = 1 << 20
    /// A header line longer than this is not a snapshot's.
    static let maximumHeaderLength = 64 * 1024
    static let trailerLength = "sha256 ".utf8.count + 64 + 1

    public struct Header: Codable, Sendable, Equatable {
        /// The view's applied log position in the copy: a node installing it follows the log from
        /// the position after.
        public var appliedPosition: UInt64
        /// The log the view was built from (`CommandLog.source()`); `nil` for a view that has
        /// applied nothing yet.
        public var source: String?
        /// Length of the data file.
        public var bytes: Int
        /// When the copy was taken, ISO 8601.
        public var createdAt: String

        public init(appliedPosition: UInt64, source: String?, bytes: Int, createdAt: Date) {
            self.appliedPosition = appliedPosition
            self.source = source
            self.bytes = bytes
            self.createdAt = ISO8601DateFormatter().string(from: createdAt)
        }
    }

    /// Writes the snapshot of `dataFile` (a compacted copy nothing writes to) to `output`.
    static func write(header: Header, dataFile: String, to output: FileHandle) throws {
        guard let input = FileHandle(forReadingAtPath: dataFile) else {
            throw StoreError(.lmdb, "cannot open the copy \(dataFile) to write a snapshot")
        }
        defer { try? input.close() }
        var hash = SHA256()
        func emit(_ bytes: some DataProtocol) throws {
            hash.update(data: bytes)
            try output.write(contentsOf: bytes)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try emit(Self.magic)
        try emit(try encoder.encode(header) + [UInt8(ascii: "\n")])
        var written = 0
        while let chunk = try input.read(upToCount: Self.chunkSize), !chunk.isEmpty {
            written += chunk.count
            guard written <= header.bytes else { break }
            try emit(chunk)
        }
        guard written == header.bytes else {
            throw StoreError(.lmdb, "the copy \(dataFile) changed while it was written: \(written) bytes, expected \(header.bytes)")
        }
        try output.write(contentsOf: Array("sha256 \(Self.hex(hash.finalize()))\n".utf8))
    }

    static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
