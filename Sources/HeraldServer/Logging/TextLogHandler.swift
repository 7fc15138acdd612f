#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HeraldCore
public import Logging

/// swift-log's text format (`<time> <level> <label>: <metadata> [<source>] <message>`), with
/// every value escaped: messages and metadata carry untrusted text (a Waku content topic, a
/// header), and a newline in one must not forge a log line. URLs lose their credentials.
public struct TextLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable (String) -> Void

    public init(label: String, write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) {
        self.label = label
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = self.metadata
        if let provided = self.metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        var line = "\(Self.timestamp()) \(event.level) \(Self.escape(self.label)):"
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            line += " \(Self.escape(key))=\(Self.render(value))"
        }
        line += " [\(Self.escape(event.source))] \(Self.escape(event.message.description))\n"
        self.write(line)
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
