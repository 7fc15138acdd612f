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

    /// One `key = value  # source` line per key, secrets masked.
    public func rendered() -> String {
        let width = self.entries.map { $0.key.name.count + $0.displayValue.count + 3 }.max() ?? 0
        return self.entries.map { entry in
            let assignment = "\(entry.key.name) = \(entry.displayValue)"
            return assignment + String(repeating: " ", count: max(1, width - assignment.count + 2)) + "# \(entry.source)"
        }.joined(separator: "\n")
    }
}
