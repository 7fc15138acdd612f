public import Foundation

/// Parses an HTTP `Retry-After` value (RFC 9110 §10.2.3): delta-seconds or an HTTP-date.
public enum RetryAfter {
    /// Longer waits are read as this: a peer asking for more is broken, and the value must stay
    /// far inside `Duration`'s and `Int64`'s range.
    public static let maximum: Duration = .seconds(86_400)

    public static func parse(_ value: String, now: Date = Date()) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(trimmed) {
            return seconds >= 0 ? min(.seconds(seconds), Self.maximum) : nil
        }
        guard let date = Self.httpDate(trimmed) else { return nil }
        let interval = date.timeIntervalSince(now)
        return .milliseconds(Int64(min(max(0, interval), Self.seconds(Self.maximum)) * 1000))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds)
    }

    private static func httpDate(_ text: String) -> Date? {
        // Every HTTP-date form is visible ASCII and spaces. Anything else never reaches
        // DateFormatter, which traps on a combining mark (Foundation on Linux: "Incorrect range").
        guard text.utf8.allSatisfy({ (0x20..<0x7F).contains($0) }) else { return nil }
        // IMF-fixdate is what senders must produce; the two obsolete forms must still be accepted.
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
