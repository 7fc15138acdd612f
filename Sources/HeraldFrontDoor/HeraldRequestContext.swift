public import Hummingbird
public import NIOCore

/// The request context every Herald route runs with; front doors derive narrower ones from it.
public struct HeraldRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Who sent the request, for per-client limits; `nil` in router tests without a channel.
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }
}
