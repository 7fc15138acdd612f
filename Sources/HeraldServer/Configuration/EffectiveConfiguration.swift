public import HeraldConfig
import Yams

/// The parsed configuration together with where each value came from, for `--print-config`
/// and the start-up log.
public struct EffectiveConfiguration: Sendable {
    public struct Entry: Sendable, Hashable {
        public var key: ConfigurationKey
        /// The value as written, or `******` for a secret that is set.
        public var displayValue: String
        /// `default`, `file herald.yaml`, `environment HERALD_…`, `flag --…`, or `unset`.
        public var source: String
    }

    public var configuration: HeraldConfiguration
    public var entries: [Entry]
    /// The YAML file that was read, if any.
    public var filePath: String?

    /// The values that are set, as a nested YAML mapping (the form of the configuration file),
    /// secrets as `[REDACTED]`: what a front door may serve to its operators.
    public func yaml() -> String {
        var root: [String: Any] = [:]
        func insert(_ value: String, at path: ArraySlice<String>, into mapping: inout [String: Any]) {
            guard let head = path.first else { return }
            if path.count == 1 {
                mapping[head] = value
            } else {
                var child = mapping[head] as? [String: Any] ?? [:]
                insert(value, at: path.dropFirst(), into: &child)
                mapping[head] = child
            }
        }
        for entry in self.entries where entry.source != "unset" {
            let value = entry.key.isSecret ? "[REDACTED]" : entry.displayValue
            insert(value, at: ArraySlice(entry.key.name.split(separator: ".").map(String.init)), into: &root)
        }
        return (try? Yams.dump(object: root, sortKeys: true)) ?? ""
    }

    /// One `key = value  # source` line per key, secrets masked.
    public func rendered() -> String {
        let width = self.entries.map { $0.key.name.count + $0.displayValue.count + 3 }.max() ?? 0
        return self.entries.map { entry in
            let assignment = "\(entry.key.name) = \(entry.displayValue)"
            return assignment + String(repeating: " ", count: max(1, width - assignment.count + 2)) + "# \(entry.source)"
        }.joined(separator: "\n")
    }
}
