/// The HTTP answer to one relay push, and what became of it.
public struct RelayAnswer: Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]
    /// Plain text saying what was wrong; empty for 201.
    public var text: String
    public var outcome: RelayOutcome

    public init(status: Int, headers: [String: String] = [:], text: String, outcome: RelayOutcome) {
        self.status = status
        self.headers = headers
        self.text = text
        self.outcome = outcome
    }

    init(_ error: RelayError) {
        let outcome: RelayOutcome =
            switch error.status {
            case 404: .notFound
            case 413: .tooLarge
            case 415: .unsupportedEncoding
            default: .badRequest
            }
        self.init(status: error.status, text: error.description, outcome: outcome)
    }

    init(_ failure: VAPIDVerifier.Failure) {
        switch failure {
        case .missing:
            self.init(status: 401, headers: ["WWW-Authenticate": "vapid"], text: failure.description, outcome: .unauthorized)
        case .refused:
            self.init(status: 403, text: failure.description, outcome: .forbidden)
        }
    }

    /// RFC 8030 pushes are POSTs; anything else on a push resource is 405, which a sender sees
    /// as a broken subscription, as it is.
    static let methodNotAllowed = RelayAnswer(status: 405, headers: ["Allow": "POST"], text: "push with POST (RFC 8030 §5)", outcome: .methodNotAllowed)

    /// Accepted: RFC 8030 §5's `201` with the push message's resource and the `TTL` kept.
    static func created(id: String, ttl: Int, outcome: RelayOutcome) -> RelayAnswer {
        RelayAnswer(status: 201, headers: ["Location": "/webpush/messages/\(id)", "TTL": "\(ttl)"], text: "", outcome: outcome)
    }
}

/// What became of a relay push: the `outcome` label of `herald_webpush_pushes_total`.
public enum RelayOutcome: String, Sendable, Hashable, CaseIterable {
    case delivered
    /// The body did not fit the provider's payload and `webpush.oversize` is `drop`.
    case oversizeDropped = "oversize_dropped"
    /// It did not fit and the reduced alert was delivered instead.
    case oversizeReduced = "oversize_reduced"
    /// The provider declared the token dead now: 410.
    case deadToken = "dead_token"
    /// The token was declared dead before: 410 without asking the provider.
    case knownDeadToken = "known_dead_token"
    /// Over `webpush.rate-limit`: 429.
    case rateLimited = "rate_limited"
    /// The provider throttled the device: 429.
    case providerThrottled = "provider_throttled"
    /// Herald's queue was full or shutting down: 429 or 503.
    case overloaded
    /// The provider refused the relay's credentials or topic: 502.
    case providerRejected = "provider_rejected"
    /// Retries ran out, the deadline passed, or the connection failed: 503.
    case failed
    case notFound = "not_found"
    case methodNotAllowed = "method_not_allowed"
    case badRequest = "bad_request"
    case unsupportedEncoding = "unsupported_encoding"
    case tooLarge = "too_large"
    case unauthorized
    case forbidden
}
