public import HeraldCluster
public import HeraldCore
public import Hummingbird

/// A request the mediator API or the DIDComm endpoint refuses with no DIDComm answer: not a
/// DIDComm message, or one Herald does not take, or one it cannot take now. It renders Herald's
/// API answer, `{"error": "…"}` with its status, so routes throw it and the router answers.
public struct AriesError: CodedError, HTTPResponseError {
    public enum Code: String, Sendable {
        /// The connection id is empty or too long.
        case invalidConnection = "aries.invalid_connection"
        /// Not a plaintext DIDComm message, or one Herald does not take.
        case invalidMessage = "aries.invalid_message"
        /// A notify body Herald does not take.
        case invalidNotify = "aries.invalid_notify"
        /// A DIDComm envelope that does not open with Herald's key, or has no sender.
        case invalidEnvelope = "aries.invalid_envelope"
        /// The answer could not be packed for the wallet.
        case answerNotPacked = "aries.answer_not_packed"
        /// The device info could not be stored now.
        case notStored = "aries.not_stored"
        /// The connection's partition has no owner that can take the message now (cluster).
        case ownerUnavailable = "aries.owner_unavailable"
        /// The client sent more envelopes than its limit allows.
        case rateLimited = "aries.rate_limited"
    }

    public let code: Code
    public let status: HTTPResponse.Status
    public let message: String
    /// Seconds before the client may send again, as `Retry-After`.
    public let retryAfter: Int?

    init(_ code: Code, status: HTTPResponse.Status = .badRequest, _ message: String, retryAfter: Int? = nil) {
        self.code = code
        self.status = status
        self.message = message
        self.retryAfter = retryAfter
    }

    static func invalidConnection(_ message: String) -> AriesError { AriesError(.invalidConnection, message) }
    static func invalidMessage(_ message: String) -> AriesError { AriesError(.invalidMessage, message) }
    static func invalidNotify(_ message: String) -> AriesError { AriesError(.invalidNotify, message) }
    static func invalidEnvelope(_ message: String) -> AriesError { AriesError(.invalidEnvelope, message) }

    static func answerNotPacked(_ error: DIDCommError) -> AriesError {
        AriesError(.answerNotPacked, status: .internalServerError, error.description)
    }

    static func rateLimited(perMinute: Int, retryAfter: Int) -> AriesError {
        AriesError(
            .rateLimited,
            status: .tooManyRequests,
            "this address sent more than \(perMinute) envelopes a minute (aries.client-rate-limit); send again in \(retryAfter) s",
            retryAfter: retryAfter
        )
    }

    static let notStored = AriesError(.notStored, status: .serviceUnavailable, "the device info could not be stored now")

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = JSONValue.object([("error", .string(self.message))]).bytes
        var headers: HTTPFields = [.contentType: "application/json"]
        if let seconds = self.retryAfter { headers[.retryAfter] = String(seconds) }
        return Response(status: self.status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}

extension AriesError: OwnerUnavailableError {
    /// 503: the mediator or wallet sends again.
    public static func ownerUnavailable(_ reason: String) -> AriesError {
        AriesError(.ownerUnavailable, status: .serviceUnavailable, "the connection's owner cannot take it now: \(reason)")
    }
}
