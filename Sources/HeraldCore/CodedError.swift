/// An error with a stable code (for logs, metric labels and wire tables) and a message for
/// people. Two errors are equal when their codes are: tests and callers match on the code, not
/// on the wording.
public protocol CodedError: Error, Hashable, CustomStringConvertible {
    associatedtype Code: RawRepresentable, Hashable where Code.RawValue == String
    var code: Code { get }
    var message: String { get }
}

extension CodedError {
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }
    public var description: String { "\(self.code.rawValue): \(self.message)" }
}
