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
    /// The header fields of one attempt on a connection to `authority`; `authorization` is `nil`
    /// when the connection authenticates with a client certificate.
    func headerBlock(authority: String, authorization: String?) -> HTTP2Fields
    var body: [UInt8] { get }
    /// What to do about the provider's answer.
    func decision(for response: HTTP2Response) -> AttemptVerdict
}
