/// A value with an explicit, versioned binary layout for the store.
///
/// The first byte of every stored value is its format version; `decode` dispatches on it, so a
/// newer Herald can read what an older one wrote and an unknown version is an error, not garbage.
public protocol StoreCodable: Sendable {
    /// The format version `encode` writes.
    static var formatVersion: UInt8 { get }
    func encode(into writer: inout BinaryWriter)
    static func decode(from reader: inout BinaryReader, formatVersion: UInt8) throws(StoreError) -> Self
}

extension StoreCodable {
    public func encoded() -> [UInt8] {
        var writer = BinaryWriter()
        writer.write(Self.formatVersion)
        self.encode(into: &writer)
        return writer.bytes
    }

    public static func decoded(from bytes: UnsafeRawBufferPointer) throws(StoreError) -> Self {
        var reader = BinaryReader(bytes, decoding: "\(Self.self)")
        let version = try reader.read(UInt8.self)
        guard version >= 1, version <= Self.formatVersion else {
            throw StoreError(.unsupportedFormat, "\(Self.self) format version \(version); this build reads 1...\(Self.formatVersion)")
        }
        let value = try Self.decode(from: &reader, formatVersion: version)
        try reader.expectEnd()
        return value
    }

    public static func decoded(from bytes: [UInt8]) throws(StoreError) -> Self {
        do {
            return try bytes.withUnsafeBytes { buffer in try Self.decoded(from: buffer) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.corrupt, "\(error)")
        }
    }
}

/// A table key: its bytes order keys the way the table wants them iterated.
public protocol StoreKey: Sendable {
    var storeKeyBytes: [UInt8] { get }
    init(storeKeyBytes: UnsafeRawBufferPointer) throws(StoreError)
}
