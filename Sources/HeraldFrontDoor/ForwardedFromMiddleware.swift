import HeraldCluster
import HTTPTypes
public import Hummingbird

/// Reads the forwarding node's id into the context, once for every internal route. It runs only
/// on the internal API: everything that arrives there was forwarded, so a request without the
/// header still counts as forwarded and is never forwarded again.
public struct ForwardedFromMiddleware<Context: ForwardingRequestContext>: RouterMiddleware {
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.forwardedFrom = HTTPField.Name(ClusterForwarder.forwardedHeader).flatMap { request.headers[$0] } ?? "another node"
        return try await next(request, context)
    }
}
