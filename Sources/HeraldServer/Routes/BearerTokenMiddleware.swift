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
        let presented = request.headers[.authorization] ?? ""
        guard Self.constantTimeEquals(Array(presented.utf8), Array("Bearer \(self.token)".utf8)) else {
            throw HTTPError(
                .unauthorized,
                headers: [.wwwAuthenticate: "Bearer realm=\"\(self.realm)\""],
                message: "a bearer token is required for \(request.uri.path)"
            )
        }
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
