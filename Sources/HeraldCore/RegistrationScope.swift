/// A front door's key space in the registry, so equal subjects of two protocols never collide. Each door declares its own (number and name) in its folder;
/// the node refuses to start when two declare the same. The number is what the store keeps: it
/// never changes once registrations exist.
public struct RegistrationScope: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    /// What logs call it. A scope read back from a stored key has no declared name.
    public let name: String

    public init(_ rawValue: UInt8, name: String) {
        self.rawValue = rawValue
        self.name = name
    }

    public init(rawValue: UInt8) {
        self.init(rawValue, name: "scope(\(rawValue))")
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.rawValue == rhs.rawValue
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.rawValue)
    }

    public var description: String { self.name }
}
