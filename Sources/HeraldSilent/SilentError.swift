public import HeraldCluster
import HeraldCore
public import Hummingbird

/// Why a silent-sync request is refused. It renders its own answer, `{"error": "…"}` with its
/// status (a relayed refusal as the owner gave it), so routes throw it and the router answers.
public enum SilentError: Error, Equatable, CustomStringConvertible {
    case malformed(String)
    /// The body is larger than the request can be.
    case tooLarge(String)
    case unsupportedMediaType(String?)
    /// The service cannot deliver to this kind of device (no credentials for it).
    case notServed(String)
    case unknownService(String)
    /// A forwarded registration names a service this node does not configure.
    case unknownForwardedService
    case unknownBroadcast(String)
    /// Too many broadcasts run already: 429 with `Retry-After`.
    case busy(String, retryAfter: Int)
    /// This client sent more registrations than its limit allows: 429 with `Retry-After`.
    case rateLimited(String, retryAfter: Int)
    /// The registration's partition has no owner now (cluster).
    case unavailable(String)
    /// The owner's answer to a forwarded registration: its status and body.
    case relayed(Int, String)

    /// Seconds an app waits before registering again when the registration cannot be taken now.
    static let unavailableRetryAfter = 5

    public var status: HTTPResponse.Status {
        switch self {
        case .malformed, .notServed: .badRequest
        case .tooLarge: .contentTooLarge
        case .unsupportedMediaType: .unsupportedMediaType
        case .unknownService, .unknownForwardedService, .unknownBroadcast: .notFound
        case .busy, .rateLimited: .tooManyRequests
        case .unavailable: .serviceUnavailable
        case .relayed(let status, _): HTTPResponse.Status(code: status)
        }
    }

    public var description: String {
        switch self {
        case .malformed(let detail), .tooLarge(let detail), .notServed(let detail), .unavailable(let detail), .busy(let detail, _), .rateLimited(let detail, _): detail
        case .unsupportedMediaType(let type):
            "Content-Type \(type.map { "'\($0.prefix(60))'" } ?? "is missing"): send application/x-protobuf, application/protobuf or application/json"
        case .unknownService(let name): "no silent-sync service '\(name.prefix(60))' is configured"
        case .unknownForwardedService: "no such silent service"
        case .unknownBroadcast(let id): "no broadcast '\(id.prefix(40))'"
        case .relayed(_, let body): body
        }
    }
}

extension SilentError: HTTPResponseError {
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        switch self {
        case .unavailable: headers[.retryAfter] = String(Self.unavailableRetryAfter)
        case .busy(_, let seconds), .rateLimited(_, let seconds): headers[.retryAfter] = String(seconds)
        default: break
        }
        let body: [UInt8]
        if case .relayed(_, let answer) = self {
            // The owner's refusal, passed on as it gave it.
            body = Array(answer.utf8)
        } else {
            body = JSONValue.object([("error", .string(self.description))]).bytes
        }
        return Response(status: self.status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}

extension SilentError: OwnerUnavailableError {
    /// 503 with `Retry-After`: the app registers again later.
    public static func ownerUnavailable(_ reason: String) -> SilentError {
        .unavailable("the registration's owner cannot take it now: \(reason)")
    }
}
