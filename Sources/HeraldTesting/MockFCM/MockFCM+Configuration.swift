public import Foundation

extension MockFCM {
    public struct Configuration: Sendable {
        /// The project's ID, as in the service-account JSON's `project_id`.
        public var projectID: String
        /// The numeric project number; FCM takes either in the send URL.
        public var projectNumber: String?
        /// The service account's `client_email`: the only `iss` the token endpoint accepts.
        public var clientEmail: String
        /// The service account's RSA public key (PEM, SubjectPublicKeyInfo or PKCS#1).
        public var publicKeyPEM: String
        /// The service account's `private_key_id`. When set, an assertion whose header carries a
        /// `kid` must name it; an assertion without `kid` is still accepted, as whether Google
        /// requires one is unverified (fcm.md §7).
        public var privateKeyID: String?
        /// Seconds an access token lives, answered as `expires_in`. Google answers 3599.
        public var accessTokenLifetime = 3599
        /// The mock's clock, for the assertion's `iat`/`exp` and access-token expiry; tests move
        /// it forward.
        public var now: @Sendable () -> Date = Date.init

        public init(
            projectID: String,
            projectNumber: String? = nil,
            clientEmail: String,
            publicKeyPEM: String,
            privateKeyID: String? = nil
        ) {
            self.projectID = projectID
            self.projectNumber = projectNumber
            self.clientEmail = clientEmail
            self.publicKeyPEM = publicKeyPEM
            self.privateKeyID = privateKeyID
        }
    }

    /// How the mock answers a send, as FCM does for a token in that state (fcm.md §4.2).
    public enum TokenState: Sendable, Hashable {
        /// `404 NOT_FOUND` / `UNREGISTERED`.
        case unregistered
        /// `403 PERMISSION_DENIED` / `SENDER_ID_MISMATCH`.
        case senderIDMismatch
        /// `429 RESOURCE_EXHAUSTED` / `QUOTA_EXCEEDED`; `retryAfter` is sent verbatim as
        /// `Retry-After`, so delta-seconds (`"30"`) and HTTP-dates both fit.
        case quotaExceeded(retryAfter: String?)
        /// `503 UNAVAILABLE` / `UNAVAILABLE`, with `Retry-After` as for `quotaExceeded`.
        case unavailable(retryAfter: String?)
        /// `500 INTERNAL` / `INTERNAL`.
        case `internal`
        /// `401 UNAUTHENTICATED` / `THIRD_PARTY_AUTH_ERROR`: APNs or web-push credentials in
        /// Firebase are bad; unlike a bare 401 it carries an FcmError detail.
        case thirdPartyAuthError
        /// `400 INVALID_ARGUMENT` / `INVALID_ARGUMENT` with this message, e.g. "The registration
        /// token is not a valid FCM registration token" for a well-formed token FCM does not know.
        case invalidArgument(String)
    }

    /// A message the mock accepted (answered 200, not `validate_only`).
    public struct AcceptedMessage: Sendable, Hashable {
        public enum Target: Sendable, Hashable {
            case token(String)
            case topic(String)
            case condition(String)
        }

        /// The name answered, `projects/<project>/messages/<id>`.
        public var name: String
        /// The project as the URL named it: the ID or the number.
        public var project: String
        public var target: Target
        /// The request's `message` object as compact JSON; keys come in the order the JSON
        /// decoder gives them, which need not be the order sent.
        public var message: Data
        /// `message.data`.
        public var data: [String: String]
        /// `message.android.priority`, as sent (either case).
        public var androidPriority: String?
        /// `message.android.ttl`, as sent (`"3600s"`).
        public var androidTTL: String?
        /// `message.android.collapse_key` (or `collapseKey`).
        public var androidCollapseKey: String?
        /// Whether the request came over HTTP/2 rather than HTTP/1.1.
        public var overHTTP2: Bool
    }
}
