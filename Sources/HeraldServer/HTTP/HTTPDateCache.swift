#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The `Date` header of answers written from the pipeline (RFC 9110 §5.6.7's IMF-fixdate),
/// formatted once a second rather than once an answer, like Hummingbird's own cache for the
/// router's answers.
final class HTTPDateCache: Sendable {
    private let current = Mutex<(second: Int, text: String)>((-1, ""))

    var now: String {
        let second = Int(time(nil))
        return self.current.withLock { current in
            if current.second != second { current = (second, Self.format(second)) }
            return current.text
        }
    }

    static func format(_ seconds: Int) -> String {
        var epoch = time_t(seconds)
        var parts = tm()
        gmtime_r(&epoch, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
