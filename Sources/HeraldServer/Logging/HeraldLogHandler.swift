import Foundation
public import Logging

/// The node's log handler: one line a log event in `Format`, to standard error. Every format
/// escapes what it writes and strips credentials from URLs: messages and metadata carry untrusted
/// text (a protocol's topic name, a header).
public struct HeraldLogHandler<Format: LogLineFormat>: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable (String) -> Void

    public init(label: String, write: @escaping @Sendable (String) -> Void = standardErrorWriter) {
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
        self.write(Format.line(label: self.label, event: event, metadata: merged))
    }
}

/// How one log event becomes one line, newline included.
public protocol LogLineFormat {
    static func line(label: String, event: LogEvent, metadata: Logger.Metadata) -> String
}

public let standardErrorWriter: @Sendable (String) -> Void = { line in
    FileHandle.standardError.write(Data(line.utf8))
}

public typealias JSONLogHandler = HeraldLogHandler<JSONLogLine>
public typealias TextLogHandler = HeraldLogHandler<TextLogLine>
