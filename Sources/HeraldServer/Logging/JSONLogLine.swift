import Foundation
import HeraldCore
public import Logging

/// One JSON object a log event, for log shippers: `ts`, `level`, `label`, `msg`, `source` and the
/// metadata keys flattened beside them.
public enum JSONLogLine: LogLineFormat {
    public static func line(label: String, event: LogEvent, metadata: Logger.Metadata) -> String {
        var fields: [(String, String)] = [
            ("ts", Self.quote(Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true)))),
            ("level", Self.quote(event.level.rawValue)),
            ("label", Self.quote(label)),
            ("msg", Self.quote(URLRedaction.redact(event.message.description))),
            ("source", Self.quote(event.source)),
        ]
        let reserved = Set(fields.map(\.0))
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) where !reserved.contains(key) {
            fields.append((key, Self.render(value)))
        }
        return "{" + fields.map { "\(Self.quote($0.0)):\($0.1)" }.joined(separator: ",") + "}\n"
    }

    private static func render(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let string): quote(URLRedaction.redact(string))
        case .stringConvertible(let convertible): quote(URLRedaction.redact(convertible.description))
        case .array(let values): "[" + values.map(render).joined(separator: ",") + "]"
        case .dictionary(let dictionary):
            "{" + dictionary.sorted { $0.key < $1.key }.map { "\(quote($0.key)):\(render($0.value))" }.joined(separator: ",") + "}"
        }
    }

    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20: out += String(format: "\\u%04x", c.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
