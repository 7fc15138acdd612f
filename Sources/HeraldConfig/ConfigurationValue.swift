import Configuration
import Foundation

/// Herald's value forms as swift-configuration string conversions, so every provider (flags,
/// environment, file, defaults) is read through the same typed `requiredString(forKey:as:)`.
enum ConfigurationValue {
    /// `true`/`false`, also `yes`/`no`, `on`/`off`, `1`/`0`.
    struct Boolean: ExpressibleByConfigString {
        let value: Bool
        init?(configString: String) {
            guard let value = ConfigurationValueParsing.bool(configString) else { return nil }
            self.value = value
        }
        var description: String { "\(self.value)" }
    }

    struct Integer: ExpressibleByConfigString {
        let value: Int
        init?(configString: String) {
            guard let value = Int(configString.trimmingSpaces) else { return nil }
            self.value = value
        }
        var description: String { "\(self.value)" }
    }

    /// `500ms`, `30s`, `2m`, `1h`, `30d`, or a number of seconds.
    struct Length: ExpressibleByConfigString {
        let value: Duration
        init?(configString: String) {
            guard let value = ConfigurationValueParsing.duration(configString) else { return nil }
            self.value = value
        }
        var description: String { "\(self.value)" }
    }

    /// Bytes, with an optional binary unit.
    struct Size: ExpressibleByConfigString {
        let value: Int
        init?(configString: String) {
            guard let value = ConfigurationValueParsing.size(configString) else { return nil }
            self.value = value
        }
        var description: String { "\(self.value)" }
    }

    /// A word from a closed set, matched without regard to case.
    struct Choice<Value: RawRepresentable<String> & CaseIterable & Sendable>: ExpressibleByConfigString {
        let value: Value
        init?(configString: String) {
            guard let value = Value(rawValue: configString.trimmingSpaces.lowercased()) else { return nil }
            self.value = value
        }
        var description: String { self.value.rawValue }
    }

    struct HTTPURL: ExpressibleByConfigString {
        let value: URL
        private let text: String
        init?(configString: String) {
            let text = configString.trimmingSpaces
            guard let url = URL(configString: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                return nil
            }
            // Foundation takes any digits as a port; a socket takes 1 to 65535.
            if let port = url.port, !(1...65535).contains(port) { return nil }
            self.value = url
            self.text = text
        }
        /// The URL as written.
        var description: String { self.text }
    }
}
