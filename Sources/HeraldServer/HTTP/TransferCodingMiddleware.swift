import Hummingbird
import Foundation
import HeraldFrontDoor

/// Refuses a request body sent with a transfer coding other than `chunked` (`gzip, chunked`, …)
/// with `501 Not Implemented`, as RFC 9112 §6.1 asks of a server that does not understand it:
/// the HTTP parser removes the chunking only, and the still-encoded body would be read as if it
/// were plain.
struct TransferCodingMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let unsupported = Self.unsupportedCoding(request.headers[values: .transferEncoding]) {
            throw HTTPError(.notImplemented, message: "the transfer coding \(unsupported) is not supported; send the body chunked or with Content-Length")
        }
        return try await next(request, context)
    }

    /// The first coding other than `chunked` among the header's values, if any.
    static func unsupportedCoding(_ values: [String]) -> String? {
        for value in values {
            for coding in value.split(separator: ",") {
                let name = coding.split(separator: ";").first.map { String($0).trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
                if !name.isEmpty, name != "chunked" { return name }
            }
        }
        return nil
    }
}
