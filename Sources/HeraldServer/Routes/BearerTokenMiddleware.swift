import Hummingbird

/// Lets through only requests bearing `Authorization: Bearer <token>`; others get 401 with a
/// `WWW-Authenticate` challenge.
struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String
    var realm = "herald"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try self.authorize(request)
        return try await next(request, context)
    }

    func authorize(_ request: Request) throws {
        let presented = Self.credentials(request.headers[.authorization] ?? "")
        guard Self.constantTimeEquals(presented, Array(self.token.utf8)) else {
            throw HTTPError(
                .unauthorized,
                headers: [.wwwAuthenticate: "Bearer realm=\"\(self.realm)\""],
                message: "a bearer token is required for \(request.uri.path)"
            )
        }
    }

    /// The credentials after the `Bearer` scheme, which RFC 9110 §11.1 makes case-insensitive and
    /// separates from them by one or more spaces; empty when the scheme is another.
    static func credentials(_ authorization: String) -> [UInt8] {
        let bytes = Array(authorization.utf8)
        let scheme = Array("bearer".utf8)
        guard bytes.count > scheme.count, bytes[scheme.count] == UInt8(ascii: " ") else { return [] }
        for index in scheme.indices where bytes[index] | 0x20 != scheme[index] { return [] }
        return Array(bytes[scheme.count...].drop { $0 == UInt8(ascii: " ") })
    }

    /// Compares without an early exit, so response time does not reveal how much of a guess matched.
    static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference: UInt8 = lhs.count == rhs.count ? 0 : 1
        for index in 0..<max(lhs.count, rhs.count) {
            let a = index < lhs.count ? lhs[index] : 0
            let b = index < rhs.count ? rhs[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }
}
