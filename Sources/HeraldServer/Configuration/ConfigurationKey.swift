import Foundation

/// One configuration key: its name, the kind of value it takes, its default and its help text.
/// The list of these in `HeraldConfiguration.keys` is the single source for parsing, validation,
/// `--print-config` and `docs/configuration.md`.
public struct ConfigurationKey: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case string
        case port
        case bool
        /// Bytes, written as an integer or with a unit: `512MiB`, `1GiB`, `2TiB`.
        case size
        /// A duration: `30s`, `500ms`, `2m`; a bare number means seconds.
        case duration
        case oneOf([String])

        var summary: String {
            switch self {
            case .string: "string"
            case .port: "port (0–65535)"
            case .bool: "boolean"
            case .size: "size (bytes, or with KiB/MiB/GiB/TiB)"
            case .duration: "duration (`500ms`, `30s`, `2m`; a number is seconds)"
            case .oneOf(let values): values.joined(separator: " \\| ")
            }
        }
    }

    /// Dotted, kebab-case name: `store.map-size` (environment `HERALD_STORE_MAP_SIZE`, flag
    /// `--store-map-size`).
    public let name: String
    public let kind: Kind
    /// `nil` means unset unless configured.
    public let defaultValue: String?
    public let isSecret: Bool
    public let help: String

    public init(_ name: String, _ kind: Kind, default defaultValue: String?, secret: Bool = false, help: String) {
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.isSecret = secret
        self.help = help
    }

    /// The environment variable that sets this key.
    public var environmentVariable: String {
        "HERALD_" + self.name.uppercased().map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
    }

    /// The `herald serve` flag that sets this key.
    public var flag: String {
        "--" + self.name.replacingOccurrences(of: ".", with: "-")
    }
}
