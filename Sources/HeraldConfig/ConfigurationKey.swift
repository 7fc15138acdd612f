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
        case integer(ClosedRange<Int>)
        case oneOf([String])
        /// Several strings: comma-separated in a flag, a variable or the file.
        case list

        package var summary: String {
            switch self {
            case .string: "string"
            case .port: "port (0–65535)"
            case .bool: "boolean"
            case .size: "size (bytes, or with KiB/MiB/GiB/TiB)"
            case .duration: "duration (`500ms`, `30s`, `2m`, `1h`, `30d`; a number is seconds)"
            case .integer(let range): "integer (\(range.lowerBound)–\(range.upperBound))"
            case .oneOf(let values): values.joined(separator: " \\| ")
            case .list: "comma-separated list"
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
    /// For a key made from a template such as `apps.<app>.apns.key-id`: the template's name.
    public let template: String?
    /// For a key made from a template: the app it belongs to.
    public let app: String?

    public init(_ name: String, _ kind: Kind, default defaultValue: String?, secret: Bool = false, help: String) {
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.isSecret = secret
        self.help = help
        self.template = nil
        self.app = nil
    }

    private init(instantiating template: ConfigurationKey, app: String) {
        self.name = template.name.replacingOccurrences(of: Self.appPlaceholder, with: app)
        self.kind = template.kind
        self.defaultValue = template.defaultValue
        self.isSecret = template.isSecret
        self.help = template.help
        self.template = template.name
        self.app = app
    }

    package static let appPlaceholder = "<app>"

    /// Whether this key is a template, one key per configured app.
    public var isTemplate: Bool { self.name.contains(Self.appPlaceholder) }

    /// This template's key for `app`.
    public func instantiated(for app: String) -> ConfigurationKey {
        ConfigurationKey(instantiating: self, app: app)
    }

    /// App ids are lower-case letters, digits and single dashes, so they read the same as YAML
    /// keys, environment variables and flags.
    public static func isValidAppID(_ id: String) -> Bool {
        !id.isEmpty && !id.hasPrefix("-") && !id.hasSuffix("-") && !id.contains("--")
            && id.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    /// For a template: the app id in `name` if `name` is this template's key for some app.
    package func appID(inName name: String) -> String? {
        let pattern = self.name.split(separator: ".", omittingEmptySubsequences: false)
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard self.isTemplate, pattern.count == parts.count else { return nil }
        var app: String?
        for (expected, actual) in zip(pattern, parts) {
            if expected == Self.appPlaceholder[...] {
                app = String(actual)
            } else if expected != actual {
                return nil
            }
        }
        return app
    }

    /// For a template: the app id in an environment variable such as `HERALD_APPS_WALLET_APNS_KEY_ID`.
    package func appID(inEnvironmentVariable variable: String) -> String? {
        let parts = self.instantiated(for: "zzappzz").environmentVariable.components(separatedBy: "ZZAPPZZ")
        guard parts.count == 2, let middle = Self.middle(of: variable, prefix: parts[0], suffix: parts[1]) else { return nil }
        return middle.lowercased().replacingOccurrences(of: "_", with: "-")
    }

    /// For a template: the app id in a flag such as `--apps-wallet-apns-key-id`.
    package func appID(inFlag flag: String) -> String? {
        let parts = self.instantiated(for: "zzappzz").flag.components(separatedBy: "zzappzz")
        guard parts.count == 2 else { return nil }
        return Self.middle(of: flag, prefix: parts[0], suffix: parts[1])
    }

    private static func middle(of text: String, prefix: String, suffix: String) -> String? {
        guard text.hasPrefix(prefix), text.hasSuffix(suffix), text.count > prefix.count + suffix.count else { return nil }
        return String(text.dropFirst(prefix.count).dropLast(suffix.count))
    }

    /// The environment variable that sets this key (`<APP>` in a template).
    public var environmentVariable: String {
        let upper = self.name.replacingOccurrences(of: Self.appPlaceholder, with: "\u{1}").uppercased()
        return "HERALD_" + upper.map { $0 == "\u{1}" ? "<APP>" : ($0.isLetter || $0.isNumber ? String($0) : "_") }.joined()
    }

    /// The `herald serve` flag that sets this key.
    public var flag: String {
        "--" + self.name.replacingOccurrences(of: ".", with: "-")
    }
}

extension ConfigurationKey {
    /// The key's dotted name as swift-configuration key components.
    package var components: [String] { self.name.split(separator: ".").map(String.init) }
}
