public import HeraldCluster
public import HeraldCore

/// A refused notify request, in the Matrix error shape `{"errcode": …, "error": …}`: homeservers
/// log it and retry (docs/matrix-push-facts.md §1.4, §2.2). The messages are Sygnal's.
public struct MatrixError: CodedError {
    public enum Code: String, Sendable {
        /// The body is not JSON.
        case notJSON = "M_NOT_JSON"
        /// JSON, but not a notify request.
        case badJSON = "M_BAD_JSON"
        /// No such endpoint, or not with this method.
        case unrecognized = "M_UNRECOGNIZED"
        case tooLarge = "M_TOO_LARGE"
        /// Herald could not push every device; the homeserver retries.
        case unknown = "M_UNKNOWN"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code && lhs.message == rhs.message }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }

    /// The answer's body.
    public var body: [UInt8] {
        JSONValue.object([("errcode", .string(self.code.rawValue)), ("error", .string(self.message))]).bytes
    }
}

extension MatrixError: OwnerUnavailableError {
    public static func ownerUnavailable(_ reason: String) -> MatrixError {
        MatrixError(.unknown, "the pushkey's owner in the cluster cannot be reached: \(reason)")
    }
}
