/// Appends fixed-width big-endian integers and length-prefixed fields to a byte array.
///
/// Big-endian so that encoded integers used as keys sort numerically under LMDB's byte order.
public struct BinaryWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 64) {
        self.bytes = []
        self.bytes.reserveCapacity(capacity)
    }

    public mutating func write(_ value: UInt8) {
        self.bytes.append(value)
    }

    public mutating func write<T: FixedWidthInteger & UnsignedInteger>(_ value: T) {
        var bigEndian = value.bigEndian
        withUnsafeBytes(of: &bigEndian) { self.bytes.append(contentsOf: $0) }
    }

    public mutating func write(_ value: Bool) {
        self.bytes.append(value ? 1 : 0)
    }

    /// Raw bytes with no length; only for the last field of a key or a fixed-size field.
    public mutating func writeRaw(_ value: some Sequence<UInt8>) {
        self.bytes.append(contentsOf: value)
    }

    /// Bytes prefixed by their count as a UInt32.
    public mutating func writeBlob(_ value: some Collection<UInt8>) {
        self.write(UInt32(value.count))
        self.bytes.append(contentsOf: value)
    }

    public mutating func writeString(_ value: String) {
        self.writeBlob(value.utf8)
    }

    public mutating func writeOptionalString(_ value: String?) {
        if let value {
            self.write(true)
            self.writeString(value)
        } else {
            self.write(false)
        }
    }
}
