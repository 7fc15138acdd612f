import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A `POST /waku/v1/messages` body (or a forwarded message) Herald refuses before handling any
/// message. These are HTTP refusals, unlike `StatusError`, which drops a message in silence. It
/// renders its own answer, `{"error":"…"}` in Go's escaping with its status, so routes throw it.
struct WakuRequestError: HTTPResponseError {
    let status: HTTPResponse.Status
    let message: String

    /// The internal path takes exactly one message.
    static func notOneMessage(_ error: any Error) -> WakuRequestError {
        WakuRequestError(status: .badRequest, message: "the body must be one Waku message in nwaku's JSON form: \(Self.problem(error))")
    }

    static func notMessages(_ error: any Error) -> WakuRequestError {
        WakuRequestError(status: .badRequest, message: "the body must be a Waku message or an array of them in nwaku's JSON form: \(Self.problem(error))")
    }

    /// What is wrong, in the message's terms: the field and the problem, not the decoder's
    /// debug description of its own types.
    static func problem(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "it is not JSON" }
        func field(_ path: [any CodingKey]) -> String {
            let names = path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return names.isEmpty ? "the body" : "`" + names.joined(separator: ".").replacingOccurrences(of: ".[", with: "[") + "`"
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(field(context.codingPath + [key])) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "\(field(context.codingPath)) has the wrong type"
        case .dataCorrupted(let context) where context.codingPath.isEmpty: return "it is not JSON"
        case .dataCorrupted(let context): return "\(field(context.codingPath)) is not valid"
        @unknown default: return "it is not a Waku message"
        }
    }

    static func tooManyMessages(_ count: Int, limit: Int) -> WakuRequestError {
        WakuRequestError(status: .contentTooLarge, message: "at most \(limit) messages per request, got \(count)")
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var body = Array(#"{"error":"#.utf8)
        StatusGorushBody.writeString(self.message, into: &body)
        body.append(UInt8(ascii: "}"))
        return Response(status: self.status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
