/// Parsers for configuration text. Each returns `nil` for text it does not accept; the caller
/// turns that into an error naming the key.
public enum ConfigurationValueParsing {
    public static func port(_ text: String) -> Int? {
        guard let value = Int(text.trimmingSpaces), (0...65_535).contains(value) else { return nil }
        return value
    }

    public static func bool(_ text: String) -> Bool? {
        switch text.trimmingSpaces.lowercased() {
        case "true", "yes", "on", "1": true
        case "false", "no", "off", "0": false
        default: nil
        }
    }

    /// Bytes: a plain integer, or a number with a binary unit (`KiB`, `MiB`, `GiB`, `TiB`; the
    /// short forms `K`, `M`, `G`, `T` mean the same).
    public static func size(_ text: String) -> Int? {
        let trimmed = text.trimmingSpaces
        let units: [(String, Int)] = [
            ("kib", 1 << 10), ("mib", 1 << 20), ("gib", 1 << 30), ("tib", 1 << 40),
            ("k", 1 << 10), ("m", 1 << 20), ("g", 1 << 30), ("t", 1 << 40), ("b", 1),
        ]
        let lower = trimmed.lowercased()
        for (suffix, multiplier) in units where lower.hasSuffix(suffix) {
            let number = lower.dropLast(suffix.count).trimmingSpaces
            guard let value = Int(number), value > 0 else { return nil }
            let (bytes, overflow) = value.multipliedReportingOverflow(by: multiplier)
            return overflow ? nil : bytes
        }
        guard let value = Int(trimmed), value > 0 else { return nil }
        return value
    }
}

extension ConfigurationValueParsing {
    /// A non-negative duration: `500ms`, `30s`, `2m`, `1h`, or a bare number of seconds.
    public static func duration(_ text: String) -> Duration? {
        let lower = text.trimmingSpaces.lowercased()
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        var number = Substring(lower)
        var scale = 1.0
        for (suffix, multiplier) in units where lower.hasSuffix(suffix) {
            number = lower.dropLast(suffix.count)
            scale = multiplier
            break
        }
        guard let value = Double(number.trimmingSpaces), value >= 0, value.isFinite, value * scale < 1e9 else { return nil }
        return .milliseconds(Int64((value * scale * 1000).rounded()))
    }
}

extension StringProtocol {
    public var trimmingSpaces: String {
        String(self.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}

extension ConfigurationValueParsing {
    /// 127.0.0.0/8, ::1 or the name `localhost`; parsed, so `127.example.com` is not loopback.
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in part.count <= 3 && UInt8(part) != nil }
    }
}

extension ConfigurationValueParsing {
    /// An `http` or `https` URL with a host.
    public static func isHTTPURL(_ text: String) -> Bool {
        ConfigurationValue.HTTPURL(configString: text) != nil
    }
}
