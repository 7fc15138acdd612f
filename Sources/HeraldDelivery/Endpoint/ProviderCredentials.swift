public import NIOHPACK

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
public struct CredentialsError: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public var isPermanent: Bool

    public init(_ reason: String, isPermanent: Bool) {
        self.reason = reason
        self.isPermanent = isPermanent
    }

    public var description: String { self.reason }
}

/// What one provider request looks like on the wire and how its answer is decided.
public protocol ProviderRequest: Sendable {
    /// The HPACK header block for one attempt on a connection to `authority`; `authorization` is
    /// `nil` when the connection authenticates with a client certificate.
    func headerBlock(authority: String, authorization: String?) -> HPACKHeaders
    var body: [UInt8] { get }
    /// What to do about the provider's answer.
    func decision(for response: HTTP2Response) -> ProviderDecision
}
