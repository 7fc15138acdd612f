#if canImport(Glibc)
import Glibc
#endif
import HeraldCore
public import Logging

/// swift-log's text format, `<time> <level> <label>: <metadata> [<source>] <message>`, with every
/// value escaped: a newline in one cannot forge a log line.
public enum TextLogLine: LogLineFormat {
    public static func line(label: String, event: LogEvent, metadata: Logger.Metadata) -> String {
        var line = "\(Self.timestamp()) \(event.level) \(Self.escape(label)):"
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            line += " \(Self.escape(key))=\(Self.render(value))"
        }
        return line + " [\(Self.escape(event.source))] \(Self.escape(event.message.description))\n"
    }

    private static func render(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let string): escape(string)
        case .stringConvertible(let convertible): escape(convertible.description)
        case .array(let values): "[" + values.map(render).joined(separator: ", ") + "]"
        case .dictionary(let dictionary): "[" + dictionary.sorted { $0.key < $1.key }.map { "\(escape($0.key)): \(render($0.value))" }.joined(separator: ", ") + "]"
        }
    }

    /// Control characters and Unicode line breaks as escapes; URLs without credentials.
    static func escape(_ text: String) -> String {
        let redacted = URLRedaction.redact(text)
        guard redacted.unicodeScalars.contains(where: Self.needsEscape) else { return redacted }
        var out = ""
        for scalar in redacted.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where Self.needsEscape(c): out += "\\u{\(String(c.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x85 || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    private static func timestamp() -> String {
        var now = time(nil)
        var local = tm()
        localtime_r(&now, &local)
        var buffer = [Int8](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
