import Foundation

/// Files a configuration key names (keys, certificates, service accounts), read at start-up.
public enum ConfigurationFile {
    /// The file's text; a missing or unreadable file is a `ConfigurationError` naming `key`.
    public static func read(_ path: String, key: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError(.invalidValue, "configuration key \(key): cannot read \(path): \(error.localizedDescription)")
        }
    }
}
