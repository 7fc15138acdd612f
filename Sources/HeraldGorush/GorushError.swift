public import HeraldCore
public import Hummingbird
import NIOCore

/// A request gorush refuses as a whole; it renders gorush's exact answer,
/// `{"code":400,"message":…}`, so routes throw it and the router answers.
public struct GorushError: CodedError, HTTPResponseError {
    public enum Code: String, Sendable {
        case missingNotifications = "gorush.missing_notifications"
        case emptyNotifications = "gorush.empty_notifications"
        case tooManyNotifications = "gorush.too_many_notifications"
    }

    public let code: Code
    public let status: HTTPResponse.Status
    /// gorush's own wording, which clients may match.
    public let message: String

    init(_ code: Code, status: HTTPResponse.Status = .badRequest, _ message: String) {
        self.code = code
        self.status = status
        self.message = message
    }

    public static let missingNotifications = GorushError(.missingNotifications, "Missing notifications field.")
    public static let emptyNotifications = GorushError(.emptyNotifications, "Notifications field is empty.")

    public static func tooManyNotifications(_ count: Int, limit: Int) -> GorushError {
        GorushError(.tooManyNotifications, "Number of notifications(\(count)) over limit(\(limit))")
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = JSONValue.object([("code", .number(Double(self.status.code))), ("message", .string(self.message))])
        return Response(
            status: self.status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body.bytes))
        )
    }
}
