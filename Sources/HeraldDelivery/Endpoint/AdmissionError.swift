public import HeraldCore

/// Why a notification was not accepted for delivery at all. Callers answer these to their own
/// clients (HTTP 429 or 503 with `Retry-After`), never drop them silently.
public struct AdmissionError: CodedError {
    public enum Code: String, Sendable {
        /// The endpoint's queue is full.
        case overloaded = "delivery.overloaded"
        /// The endpoint is shutting down.
        case shuttingDown = "delivery.shutting_down"
    }

    public let code: Code
    public let message: String
    /// When to try again.
    public let retryAfter: Duration

    public init(_ code: Code, _ message: String, retryAfter: Duration) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }


}
