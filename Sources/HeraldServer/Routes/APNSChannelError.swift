import HeraldCore
import Hummingbird
import NIOCore

/// A refusal of the broadcast routes, as `{"error": …}` with APNs' reason when APNs gave one.
struct APNSChannelError: Error, HTTPResponseError {
    let status: HTTPResponse.Status
    let message: String
    /// APNs' `reason`, when the refusal is APNs'.
    var reason: String?
    var retryAfter: Int?

    init(_ status: HTTPResponse.Status, _ message: String, reason: String? = nil, retryAfter: Int? = nil) {
        self.status = status
        self.message = message
        self.reason = reason
        self.retryAfter = retryAfter
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let retryAfter = self.retryAfter { headers[.retryAfter] = String(retryAfter) }
        var fields: [(String, JSONValue)] = [("error", .string(self.message))]
        if let reason = self.reason { fields.append(("reason", .string(reason))) }
        return Response(status: self.status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONValue.object(fields).bytes)))
    }
}
