/// Where `herald serve` takes its configuration from, highest precedence first: flags, `HERALD_*`
/// environment variables, a YAML file, then the built-in defaults.
public struct ConfigurationSources: Sendable {
    /// Configuration flags as typed, e.g. `["--server-port", "9000", "--log-level=debug"]`.
    public var arguments: [String]
    /// The process environment; only `HERALD_*` variables are read.
    public var environment: [String: String]
    /// A file named with `--config` or `HERALD_CONFIG`: it must exist.
    public var filePath: String?
    /// Read when no file is named and it exists.
    public var defaultFilePath: String

    public static let fileVariable = "HERALD_CONFIG"

    public init(arguments: [String] = [], environment: [String: String] = [:], filePath: String? = nil, defaultFilePath: String = "herald.yaml") {
        self.arguments = arguments
        self.environment = environment
        self.filePath = filePath ?? environment[Self.fileVariable]
        self.defaultFilePath = defaultFilePath
    }
}
