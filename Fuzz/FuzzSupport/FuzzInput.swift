/// A fuzz input read front to back: a selector byte to choose what to exercise, then the rest.
/// Reads past the end give what is left, so every input is usable.
public struct FuzzInput {
    public private(set) var bytes: ArraySlice<UInt8>

    public init(_ buffer: UnsafeRawBufferPointer) {
        self.bytes = Array(buffer)[...]
    }

    /// The next byte, or 0 when none is left.
    public mutating func byte() -> UInt8 {
        self.bytes.popFirst() ?? 0
    }

    /// Up to `count` bytes.
    public mutating func take(_ count: Int) -> [UInt8] {
        let taken = self.bytes.prefix(count)
        self.bytes = self.bytes.dropFirst(count)
        return Array(taken)
    }

    /// Everything not read yet.
    public mutating func rest() -> [UInt8] {
        defer { self.bytes = [] }
        return Array(self.bytes)
    }
}
