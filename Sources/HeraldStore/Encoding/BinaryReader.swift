/// Reads what `BinaryWriter` wrote, throwing `StoreError.corrupt` instead of reading past the end.
public struct BinaryReader {
    private let bytes: UnsafeRawBufferPointer
    private let what: String
    public private(set) var offset: Int = 0

    public init(_ bytes: UnsafeRawBufferPointer, decoding what: String) {
        self.bytes = bytes
        self.what = what
    }

    public var remaining: Int { self.bytes.count - self.offset }

    public mutating func read(_: UInt8.Type = UInt8.self) throws(StoreError) -> UInt8 {
        try self.need(1)
        defer { self.offset += 1 }
        return self.bytes[self.offset]
    }

    public mutating func read<T: FixedWidthInteger & UnsignedInteger>(_: T.Type) throws(StoreError) -> T {
        let size = MemoryLayout<T>.size
        try self.need(size)
        var value: T = 0
        for index in 0..<size {
            value = value << 8 | T(self.bytes[self.offset + index])
        }
        self.offset += size
        return value
    }

    public mutating func readBool() throws(StoreError) -> Bool {
        switch try self.read(UInt8.self) {
        case 0: return false
        case 1: return true
        case let other: throw StoreError(.corrupt, "\(self.what): boolean byte \(other) at offset \(self.offset - 1)")
        }
    }

    public mutating func readRaw(count: Int) throws(StoreError) -> [UInt8] {
        try self.need(count)
        defer { self.offset += count }
        return Array(self.bytes[self.offset..<self.offset + count])
    }

    public mutating func readRest() -> [UInt8] {
        defer { self.offset = self.bytes.count }
        return Array(self.bytes[self.offset...])
    }

    public mutating func readBlob() throws(StoreError) -> [UInt8] {
        let count = Int(try self.read(UInt32.self))
        return try self.readRaw(count: count)
    }

    public mutating func readString() throws(StoreError) -> String {
        let count = Int(try self.read(UInt32.self))
        try self.need(count)
        defer { self.offset += count }
        let slice = UnsafeRawBufferPointer(rebasing: self.bytes[self.offset..<self.offset + count])
        guard let string = String(validating: slice, as: UTF8.self) else {
            throw StoreError(.corrupt, "\(self.what): invalid UTF-8 at offset \(self.offset)")
        }
        return string
    }

    public mutating func readOptionalString() throws(StoreError) -> String? {
        try self.readBool() ? try self.readString() : nil
    }

    /// Fails when bytes are left over: a value that decodes with trailing garbage is corrupt.
    public func expectEnd() throws(StoreError) {
        guard self.remaining == 0 else {
            throw StoreError(.corrupt, "\(self.what): \(self.remaining) unexpected trailing bytes")
        }
    }

    private func need(_ count: Int) throws(StoreError) {
        guard count >= 0, self.remaining >= count else {
            throw StoreError(.corrupt, "\(self.what): needs \(count) bytes at offset \(self.offset), \(self.remaining) left")
        }
    }
}
