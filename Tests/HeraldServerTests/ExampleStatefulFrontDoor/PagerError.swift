import HeraldCluster
import HeraldCore
import Hummingbird
import NIOCore

/// Every refusal of the pager door, rendering its own answer: `{"error": "…"}` with its status.
struct PagerError: HTTPResponseError, OwnerUnavailableError {
    let status: HTTPResponse.Status
    let message: String

    static func ownerUnavailable(_ reason: String) -> PagerError {
        PagerError(status: .serviceUnavailable, message: "the device's owner cannot take it now: \(reason)")
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if self.status == .serviceUnavailable { headers[.retryAfter] = "1" }
        let body = JSONValue.object([("error", .string(self.message))]).bytes
        return Response(status: self.status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
