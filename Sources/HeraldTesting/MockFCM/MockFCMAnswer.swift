import HeraldCore

/// One answer of the mock, in Google's wire shapes: `google.rpc.Status` envelopes from the send
/// endpoint (fcm.md §4.1), RFC 6749 §5.2 errors and the grant from the token endpoint (§1.3).
/// Every error shape is written here, so the routes and checks only pick one.
struct MockFCMAnswer: Sendable, Hashable {
    var status: Int
    var body: [UInt8]
    var retryAfter: String?
    /// Google sends a `WWW-Authenticate` challenge with its bare 401.
    var wwwAuthenticate: String?

    static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    static let badRequestType = "type.googleapis.com/google.rpc.BadRequest"
    static let quotaFailureType = "type.googleapis.com/google.rpc.QuotaFailure"

    /// Without a body or a content type: what a URL Google does not serve gets.
    var isBare = false

    /// A path neither endpoint serves, or a method other than POST.
    static let notFound = MockFCMAnswer(status: 404, body: [], isBare: true)
    /// A body past `MockFCM.maximumBodySize`, refused before it is read.
    static let contentTooLarge = MockFCMAnswer(status: 413, body: [], isBare: true)

    /// The answer's header fields besides the status, in the order written.
    var headerFields: [(String, String)] {
        var fields: [(String, String)] = []
        if !self.isBare { fields.append(("content-type", "application/json; charset=UTF-8")) }
        if let retryAfter = self.retryAfter { fields.append(("retry-after", retryAfter)) }
        if let wwwAuthenticate = self.wwwAuthenticate { fields.append(("www-authenticate", wwwAuthenticate)) }
        return fields
    }

    // MARK: Send endpoint

    /// `{"error":{"code":…,"message":…,"status":…,"details":[…]}}`; no `details` key when there
    /// are none, as in Google's bare 401.
    static func rpc(
        _ code: Int,
        _ status: String,
        _ message: String,
        details: [JSONValue] = [],
        retryAfter: String? = nil
    ) -> MockFCMAnswer {
        var error: [(String, JSONValue)] = [
            ("code", .number(Double(code))), ("message", .string(message)), ("status", .string(status)),
        ]
        if !details.isEmpty { error.append(("details", .array(details))) }
        return MockFCMAnswer(status: code, body: JSONValue.object([("error", .object(error))]).bytes, retryAfter: retryAfter)
    }

    static func fcmError(_ errorCode: String) -> JSONValue {
        .object([("@type", .string(Self.fcmErrorType)), ("errorCode", .string(errorCode))])
    }

    /// A request FCM would refuse as malformed: `400 INVALID_ARGUMENT` naming the field at fault
    /// in a `BadRequest` detail, then the FcmError detail clients decide on. Body-level faults
    /// (not JSON, wrong content type) name no field, as Google's do.
    static func invalidArgument(field: String?, _ description: String) -> MockFCMAnswer {
        var pairs: [(String, JSONValue)] = []
        if let field { pairs.append(("field", .string(field))) }
        pairs.append(("description", .string(description)))
        let violation = JSONValue.object(pairs)
        let badRequest = JSONValue.object([("@type", .string(Self.badRequestType)), ("fieldViolations", .array([violation]))])
        return .rpc(400, "INVALID_ARGUMENT", description, details: [badRequest, Self.fcmError("INVALID_ARGUMENT")])
    }

    /// The access token is missing, unknown, expired or revoked: a bare 401 without an FcmError
    /// detail, the one 401 that tells a client to fetch a new token (fcm.md §4.2).
    static let unauthenticated: MockFCMAnswer = {
        var answer = MockFCMAnswer.rpc(
            401,
            "UNAUTHENTICATED",
            "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid "
                + "authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
        )
        answer.wwwAuthenticate = #"Bearer realm="https://accounts.google.com/", error="invalid_token""#
        return answer
    }()

    /// The answer to a send whose token is scripted into `state`, or that `failNext` catches.
    static func state(_ state: MockFCM.TokenState) -> MockFCMAnswer {
        switch state {
        case .unregistered:
            return .rpc(404, "NOT_FOUND", "Requested entity was not found.", details: [Self.fcmError("UNREGISTERED")])
        case .senderIDMismatch:
            return .rpc(403, "PERMISSION_DENIED", "SenderId mismatch", details: [Self.fcmError("SENDER_ID_MISMATCH")])
        case .quotaExceeded(let retryAfter):
            let violation = JSONValue.object([
                ("subject", .string("device")),
                ("description", .string("Too many messages sent to this device in a short time.")),
            ])
            let quotaFailure = JSONValue.object([("@type", .string(Self.quotaFailureType)), ("violations", .array([violation]))])
            return .rpc(
                429,
                "RESOURCE_EXHAUSTED",
                "Quota exceeded for sending messages to this device.",
                details: [Self.fcmError("QUOTA_EXCEEDED"), quotaFailure],
                retryAfter: retryAfter
            )
        case .unavailable(let retryAfter):
            return .rpc(
                503,
                "UNAVAILABLE",
                "The service is currently unavailable.",
                details: [Self.fcmError("UNAVAILABLE")],
                retryAfter: retryAfter
            )
        case .internal:
            return .rpc(500, "INTERNAL", "Internal error encountered.", details: [Self.fcmError("INTERNAL")])
        case .thirdPartyAuthError:
            return .rpc(
                401,
                "UNAUTHENTICATED",
                "Auth error from APNS or Web Push Service",
                details: [Self.fcmError("THIRD_PARTY_AUTH_ERROR")]
            )
        case .invalidArgument(let message):
            return .rpc(400, "INVALID_ARGUMENT", message, details: [Self.fcmError("INVALID_ARGUMENT")])
        }
    }

    static func sent(name: String) -> MockFCMAnswer {
        MockFCMAnswer(status: 200, body: JSONValue.object([("name", .string(name))]).bytes)
    }

    // MARK: Token endpoint

    /// An RFC 6749 §5.2 error: `invalid_request`, `unsupported_grant_type` or `invalid_grant`.
    static func oauth(_ error: String, _ description: String) -> MockFCMAnswer {
        MockFCMAnswer(
            status: 400,
            body: JSONValue.object([("error", .string(error)), ("error_description", .string(description))]).bytes
        )
    }

    static func granted(accessToken: String, expiresIn: Int) -> MockFCMAnswer {
        MockFCMAnswer(
            status: 200,
            body: JSONValue.object([
                ("access_token", .string(accessToken)),
                ("expires_in", .number(Double(expiresIn))),
                ("token_type", .string("Bearer")),
            ]).bytes
        )
    }
}
