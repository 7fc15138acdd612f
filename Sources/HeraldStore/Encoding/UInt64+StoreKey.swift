extension UInt64: StoreKey {
    public var storeKeyBytes: [UInt8] {
        var writer = BinaryWriter(capacity: 8)
        writer.write(self)
        return writer.bytes
    }

    public init(storeKeyBytes bytes: UnsafeRawBufferPointer) throws(StoreError) {
        var reader = BinaryReader(bytes, decoding: "UInt64 key")
        self = try reader.read(UInt64.self)
        try reader.expectEnd()
    }
}

extension UInt64: StoreCodable {
    public static var formatVersion: UInt8 { 1 }

    public func encode(into writer: inout BinaryWriter) {
        writer.write(self)
    }

    public static func decode(from reader: inout BinaryReader, formatVersion: UInt8) throws(StoreError) -> UInt64 {
        try reader.read(UInt64.self)
    }
}

extension String: StoreKey {
    public var storeKeyBytes: [UInt8] { Array(self.utf8) }

    public init(storeKeyBytes bytes: UnsafeRawBufferPointer) throws(StoreError) {
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw StoreError(.corrupt, "string key is not UTF-8")
        }
        self = string
    }
}
