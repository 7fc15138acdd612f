public import HeraldCluster
public import HeraldCore
import HeraldFrontDoor
public import Hummingbird
import NIOCore

/// A request gorush refuses as a whole; it renders gorush's exact answer,
/// `{"code":400,"message":…}`, so routes throw it and the router answers.
public struct GorushError: CodedError, HTTPResponseError {
    public enum Code: String, Sendable {
        case missingNotifications = "gorush.missing_notifications"
        case emptyNotifications = "gorush.empty_notifications"
        case tooManyNotifications = "gorush.too_many_notifications"
        case tooManyTokens = "gorush.too_many_tokens"
        case tooManyTargets = "gorush.too_many_targets"
        case rateLimited = "gorush.rate_limited"
        case invalidIdempotencyKey = "gorush.invalid_idempotency_key"
        case idempotencyKeyInUse = "gorush.idempotency_key_in_use"
        case idempotencyKeyReused = "gorush.idempotency_key_reused"
        case unavailable = "gorush.unavailable"
    }

    public let code: Code
    public let status: HTTPResponse.Status
    /// gorush's own wording, which clients may match.
    public let message: String
    /// Seconds a client should wait before sending again, for a transient refusal.
    public let retryAfter: Int?

    init(_ code: Code, status: HTTPResponse.Status = .badRequest, _ message: String, retryAfter: Int? = nil) {
        self.code = code
        self.status = status
        self.message = message
        self.retryAfter = retryAfter
    }

    public static let missingNotifications = GorushError(.missingNotifications, "Missing notifications field.")
    public static let emptyNotifications = GorushError(.emptyNotifications, "Notifications field is empty.")

    public static func tooManyNotifications(_ count: Int, limit: Int) -> GorushError {
        GorushError(.tooManyNotifications, "Number of notifications(\(count)) over limit(\(limit))")
    }

    /// `index` counts from 0, as the entry's place in `notifications`.
    public static func tooManyTokens(_ count: Int, notification index: Int, limit: Int) -> GorushError {
        GorushError(.tooManyTokens, "Number of tokens(\(count)) in notification \(index) over limit(\(limit))")
    }

    public static func tooManyTargets(_ count: Int, limit: Int) -> GorushError {
        GorushError(.tooManyTargets, "Number of targets(\(count)) over limit(\(limit))")
    }

    static func rateLimited(_ client: String, limit: Int, retryAfter: Int) -> GorushError {
        GorushError(.rateLimited, status: .tooManyRequests, "Client \(client) sent more than \(limit) targets a minute.", retryAfter: retryAfter)
    }

    static let invalidIdempotencyKey = GorushError(
        .invalidIdempotencyKey,
        "Idempotency-Key must be 1 to 255 visible ASCII characters, optionally in double quotes."
    )
    static let idempotencyKeyInUse = GorushError(
        .idempotencyKeyInUse,
        status: .conflict,
        "A request with this Idempotency-Key is still being delivered; send again once it is answered.",
        retryAfter: 1
    )
    static let idempotencyKeyReused = GorushError(
        .idempotencyKeyReused,
        status: .unprocessableContent,
        "This Idempotency-Key was used with a different request body."
    )

    /// A cluster that cannot take the request now (no owner for its key, or the owner did not
    /// answer); the client sends it again.
    static func unavailable(_ message: String) -> GorushError {
        GorushError(.unavailable, status: .serviceUnavailable, message, retryAfter: 1)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let answer = self.directResponse
        return Response(status: answer.status, headers: answer.headers, body: ResponseBody(byteBuffer: answer.body))
    }

    /// The answer, for the router and for `POST /api/push` answered from the pipeline alike.
    var directResponse: DirectResponse {
        let body = JSONValue.object([("code", .number(Double(self.status.code))), ("message", .string(self.message))])
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let retryAfter = self.retryAfter { headers[.retryAfter] = String(retryAfter) }
        return DirectResponse(status: self.status, headers: headers, body: ByteBuffer(bytes: body.bytes))
    }
}

extension GorushError: OwnerUnavailableError {
    /// gorush's 503 with `Retry-After`: the client sends the request again.
    public static func ownerUnavailable(_ reason: String) -> GorushError {
        .unavailable("the Idempotency-Key's owner cannot take it now: \(reason)")
    }
}
