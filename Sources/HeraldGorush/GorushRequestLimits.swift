/// What one `/api/push` request may hold; beyond any of it the request is refused with 400.
public struct GorushRequestLimits: Sendable {
    /// gorush's `core.max_notification`.
    public var notifications = 100
    /// Tokens per entry.
    public var tokens = 500
    /// Tokens and topics per request.
    public var targets = 5_000

    public init() {}
}
