import HeraldCore
package import Configuration

/// One section of the layered configuration (flags, `HERALD_*` environment, file, defaults), read
/// as typed values through swift-configuration. Each getter takes a key name relative to the
/// section, checks the value against the key's declared kind once (ports, integer ranges,
/// choices), and throws `ConfigurationError` naming the key and where its value came from.
public struct ConfigurationSection: Sendable {
    /// `gorush`, or `apps.wallet.apns` for a provider of app `wallet`.
    public let prefix: String
    /// The app of a provider section.
    public let app: String?
    private let reader: ConfigReader
    private let keys: [String: ConfigurationKey]
    private let sources: [String: String]

    /// `keys` are the declared keys (instantiated for the app), `sources` where each key's value
    /// came from, by full name (`unset` when nowhere).
    package init(prefix: String, app: String?, reader: ConfigReader, keys: [ConfigurationKey], sources: [String: String]) {
        self.prefix = prefix
        self.app = app
        self.reader = reader
        self.keys = Dictionary(keys.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.sources = sources
    }

    /// The full name of a key of this section: `queue-limit` → `gorush.queue-limit`.
    public func name(_ key: String) -> String { "\(self.prefix).\(key)" }

    /// Whether a source other than the defaults sets `key`.
    public func isSet(_ key: String) -> Bool {
        let source = self.sources[self.name(key)] ?? "unset"
        return source != "unset" && source != "default"
    }

    /// A string, spaces trimmed; `nil` when unset or empty.
    public func string(_ key: String) throws -> String? {
        let declared = try self.declared(key)
        let value = self.reader.string(forKey: ConfigKey(declared.components), isSecret: declared.isSecret)?.trimmingSpaces
        return value?.isEmpty == false ? value : nil
    }

    /// A string, spaces trimmed, empty when set to nothing; `nil` only when unset.
    public func rawString(_ key: String) throws -> String? {
        let declared = try self.declared(key)
        return self.reader.string(forKey: ConfigKey(declared.components), isSecret: declared.isSecret)?.trimmingSpaces
    }

    /// A list: the providers' own arrays (flags and variables split at commas), or one string
    /// split at commas; items trimmed, empty ones dropped.
    public func list(_ key: String) throws -> [String] {
        let declared = try self.declared(key)
        let configKey = ConfigKey(declared.components)
        let items = self.reader.stringArray(forKey: configKey, isSecret: declared.isSecret)
            ?? self.reader.string(forKey: configKey, isSecret: declared.isSecret).map { [$0] }
            ?? []
        return items.flatMap { $0.split(separator: ",") }.map { $0.trimmingSpaces }.filter { !$0.isEmpty }
    }

    /// A string that must not be empty when set: a path, a host.
    public func nonEmptyString(_ key: String, expecting expectation: String) throws -> String? {
        let declared = try self.declared(key)
        guard let raw = self.reader.string(forKey: ConfigKey(declared.components), isSecret: declared.isSecret) else { return nil }
        guard !raw.trimmingSpaces.isEmpty else { throw self.invalid(declared, raw: raw, expecting: expectation) }
        return raw.trimmingSpaces
    }

    /// A secret as written (never trimmed: it must match byte for byte); set but empty or only
    /// spaces is refused, as it could never match.
    public func secret(_ key: String) throws -> String? {
        let declared = try self.declared(key)
        guard let raw = self.reader.string(forKey: ConfigKey(declared.components), isSecret: true) else { return nil }
        guard !raw.trimmingSpaces.isEmpty else { throw self.invalid(declared, raw: raw, expecting: "a non-empty token") }
        // Such a token could never match: HTTP drops a header value's outer whitespace, and
        // clients cannot send control or non-ASCII characters in one.
        guard raw.trimmingSpaces == raw, raw.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) else {
            throw self.invalid(declared, raw: raw, expecting: "a token of visible ASCII characters without leading or trailing spaces")
        }
        return raw
    }

    public func bool(_ key: String) throws -> Bool {
        try self.typed(key, as: ConfigurationValue.Boolean.self, expecting: "true or false").value
    }

    /// An integer within the key's declared range (`.integer(range)` or `.port`).
    public func integer(_ key: String) throws -> Int {
        let declared = try self.declared(key)
        let value = try self.typed(key, as: ConfigurationValue.Integer.self, expecting: declared.kind.expectation).value
        guard declared.kind.range.contains(value) else {
            throw self.invalid(declared, raw: "\(value)", expecting: declared.kind.expectation)
        }
        return value
    }

    public func duration(_ key: String, atLeast minimum: Duration = .zero) throws -> Duration {
        let declared = try self.declared(key)
        let value = try self.typed(key, as: ConfigurationValue.Length.self, expecting: "a duration such as 30s or 500ms").value
        guard value >= minimum else {
            throw self.invalid(declared, raw: "\(value)", expecting: "a duration of at least \(minimum)")
        }
        return value
    }

    /// Bytes, with an optional binary unit.
    public func size(_ key: String) throws -> Int {
        try self.typed(key, as: ConfigurationValue.Size.self, expecting: "a size such as 1073741824 or 1GiB").value
    }

    /// One of a closed set of words, case-insensitive.
    public func choice<Choice: RawRepresentable<String> & CaseIterable & Sendable>(_ key: String, as type: Choice.Type) throws -> Choice {
        try self.typed(
            key,
            as: ConfigurationValue.Choice<Choice>.self,
            expecting: "one of \(Choice.allCases.map(\.rawValue).joined(separator: ", "))"
        ).value
    }

    /// An `http` or `https` URL with a host, as written (spaces trimmed); `nil` when unset.
    public func httpURL(_ key: String) throws -> String? {
        let declared = try self.declared(key)
        guard self.reader.string(forKey: ConfigKey(declared.components), isSecret: declared.isSecret) != nil else { return nil }
        return try self.typed(key, as: ConfigurationValue.HTTPURL.self, expecting: "an http or https URL").description
    }

    /// A configuration error about `key` of this section, naming where its value came from.
    public func error(_ key: String, _ problem: String) -> ConfigurationError {
        let name = self.name(key)
        return ConfigurationError(.invalidValue, "configuration key \(name) (\(self.sources[name] ?? "unset")): \(problem)")
    }

    private func typed<Value: ExpressibleByConfigString>(_ key: String, as type: Value.Type, expecting expectation: String) throws -> Value {
        let declared = try self.declared(key)
        do {
            return try self.reader.requiredString(forKey: ConfigKey(declared.components), as: type, isSecret: declared.isSecret)
        } catch {
            let raw = self.reader.string(forKey: ConfigKey(declared.components), isSecret: declared.isSecret)
            throw self.invalid(declared, raw: raw ?? "", expecting: expectation)
        }
    }

    private func declared(_ key: String) throws -> ConfigurationKey {
        guard let declared = self.keys[self.name(key)] else {
            throw ConfigurationError(.unknownKey, "configuration key \(self.name(key)) is read but not declared in its section's keys")
        }
        return declared
    }

    private func invalid(_ key: ConfigurationKey, raw: String, expecting expectation: String) -> ConfigurationError {
        let shown = key.isSecret ? "" : " '\(URLRedaction.redact(raw))'"
        return ConfigurationError(.invalidValue, "configuration key \(key.name) (\(self.sources[key.name] ?? "unset")):\(shown) is not \(expectation)")
    }
}

extension ConfigurationKey.Kind {
    /// The integers the kind admits.
    var range: ClosedRange<Int> {
        switch self {
        case .port: 0...65_535
        case .integer(let range): range
        default: Int.min...Int.max
        }
    }

    var expectation: String {
        switch self {
        case .port: "a port number from 0 to 65535"
        case .integer(let range): "a number from \(range.lowerBound) to \(range.upperBound)"
        default: "a number"
        }
    }
}
