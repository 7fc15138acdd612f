public import Hummingbird
import NIOCore

extension RouterMethods {
    /// Answers the methods `path` does not take with `405 Method Not Allowed` and `Allow` (RFC
    /// 9110 §15.5.6) instead of the router's 404, so a client that used the wrong method is told
    /// which to use. A path that takes GET takes HEAD too (the node's routers generate it).
    @discardableResult
    public func allowOnly(_ methods: [HTTPRequest.Method], at path: RouterPath) -> Self {
        let taken = methods.contains(.get) ? methods + [.head] : methods
        let allow = taken.map(\.rawValue).joined(separator: ", ")
        // QUERY (a safe method with a body) has no HTTPTypes constant.
        for method in [HTTPRequest.Method.get, .head, .post, .put, .delete, .patch, .trace, Self.query] where !taken.contains(method) {
            self.on(path, method: method) { request, _ -> Response in
                let message = #"{"error":"\#(request.method.rawValue) is not allowed here; use \#(allow)"}"#
                return Response(
                    status: .methodNotAllowed,
                    headers: [.allow: allow, .contentType: "application/json"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: method == .head ? "" : message))
                )
            }
        }
        return self
    }
}

extension RouterMethods {
    static var query: HTTPRequest.Method { HTTPRequest.Method("QUERY")! }
}
