public import Hummingbird

/// A request context that says whether another node of the cluster forwarded the request here,
/// and which. Only the internal API, behind the cluster secret, sets it
/// (`ForwardedFromMiddleware`), so a client cannot pass a request off as forwarded.
public protocol ForwardingRequestContext: RequestContext {
    /// The forwarding node's id; `nil` for a client's request.
    var forwardedFrom: String? { get set }
}
