/// An error of the registry's rules, with a stable code for logs, metric labels and wire tables.
public struct RegistryError: CodedError {
    public enum Code: String, Sendable {
        case invalidKey = "registry.invalid_key"
        case versionConflict = "registry.version_conflict"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }


}
