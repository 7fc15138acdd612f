import Foundation
import HeraldCore
public import Logging

/// Writes one JSON object per log event, for log shippers: `ts`, `level`, `label`, `msg`, `source`
/// and the metadata keys flattened beside them. URLs lose their credentials.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable (String) -> Void

    public init(label: String, write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) {
        self.label = label
        self.write = write
    }

    public static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data(line.utf8))
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = self.metadata
        if let provided = self.metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        var fields: [(String, String)] = [
            ("ts", Self.quote(Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true)))),
            ("level", Self.quote(event.level.rawValue)),
            ("label", Self.quote(self.label)),
            ("msg", Self.quote(URLRedaction.redact(event.message.description))),
            ("source", Self.quote(event.source)),
        ]
        let reserved = Set(fields.map(\.0))
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) where !reserved.contains(key) {
            fields.append((key, Self.render(value)))
        }
        self.write("{" + fields.map { "\(Self.quote($0.0)):\($0.1)" }.joined(separator: ",") + "}\n")
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
