public import Logging

/// A front door's start-up log line: what it serves and how.
public struct FrontDoorSummary: Sendable {
    public var message: String
    public var metadata: Logger.Metadata

    public init(_ message: String, metadata: Logger.Metadata = [:]) {
        self.message = message
        self.metadata = metadata
    }
}
