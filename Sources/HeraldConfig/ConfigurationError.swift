public import HeraldCore

/// Why the configuration was refused. The message names the key and where its value came from,
/// so an operator can fix it without reading code.
public struct ConfigurationError: CodedError {
    public enum Code: String, Sendable {
        case unknownKey = "config.unknown_key"
        case invalidValue = "config.invalid_value"
        case unreadableFile = "config.unreadable_file"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code && lhs.message == rhs.message }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }

    public var description: String { self.message }
}
