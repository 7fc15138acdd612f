public import HeraldCore

/// Where an endpoint gets the `authorization` header of its requests: an APNs provider token or an
/// FCM OAuth access token, each cached and shared by every connection that uses it.
public protocol ProviderCredentials: Sendable {
    /// The `authorization` header value to send now.
    func authorization() async throws(CredentialsError) -> String
    /// The provider refused `authorization` as expired: drop it, unless it was already replaced,
    /// so the next `authorization()` has a fresh one.
    func authorizationRejected(_ authorization: String) async
}

/// Credentials could not be obtained. A permanent failure (a revoked key, a refused grant) fails
/// the notification at once; a transient one (the token endpoint unreachable) is retried.
public struct CredentialsError: CodedError {
    public enum Code: String, Sendable {
        /// The key, the service account or the grant is refused for good.
        case refused = "credentials.refused"
        /// The token endpoint could not be reached or answered nonsense; later may work.
        case unavailable = "credentials.unavailable"
    }

    public let code: Code
    public let message: String

    public init(_ reason: String, isPermanent: Bool) {
        self.code = isPermanent ? .refused : .unavailable
        self.message = reason
    }

    public var isPermanent: Bool { self.code == .refused }
    /// What went wrong, for the push's failure detail.
    public var reason: String { self.message }
}

/// A notification the provider would refuse, refused before it costs a request.
public protocol ProviderRequestError: Error {
    /// What the provider would have answered, as an outcome.
    var outcome: DeliveryOutcome { get }
}

/// What one provider request looks like on the wire and how its answer is decided.
public protocol ProviderRequest: Sendable {
    /// `:method`, `:path` and the request's other fields, in the order they are sent, laid out
    /// once; the connection puts its `:scheme` and `:authority` before them and the pool the
    /// authorization after (`headerBlock`).
    var fields: HTTP2Fields { get }
    /// Whether NIOHTTP2 may keep the authorization in the peer's HPACK table (libnghttp2 never
    /// does).
    static var indexesAuthorization: Bool { get }
    var body: [UInt8] { get }
    /// What to do about the provider's answer.
    func decision(for response: HTTP2Response) -> AttemptVerdict
}

extension ProviderRequest {
    public static var indexesAuthorization: Bool { false }

    /// The `authorization` field of `value`, as the requests of one batch share it.
    public static func authorizationField(_ value: String) -> HTTP2Fields {
        var field = HTTP2Fields()
        field.add(name: "authorization", value: value, indexable: Self.indexesAuthorization)
        return field
    }

    /// The whole header block of one attempt on a connection to `authority`, as it is sent:
    /// the connection's fields, the request's, the authorization (`nil` with a client
    /// certificate).
    public func headerBlock(authority: String, authorization: String?) -> HTTP2Fields {
        var block = HTTP2Connection.requestHead(authority: authority)
        block.add(contentsOf: self.fields)
        if let authorization { block.add(contentsOf: Self.authorizationField(authorization)) }
        return block
    }
}
