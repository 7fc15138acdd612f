public import Hummingbird
public import NIOCore

/// The request context every Herald route runs with; front doors derive narrower ones from it.
public struct HeraldRequestContext: RequestContext, RemoteAddressRequestContext, ForwardingRequestContext {
    public var coreContext: CoreRequestContextStorage
    public var forwardedFrom: String?
    private let channel: any Channel

    /// Who sent the request, for per-client limits. Read only when asked: the channel takes a
    /// lock for it, and most requests never ask.
    public var remoteAddress: SocketAddress? { self.channel.remoteAddress }

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }
}
