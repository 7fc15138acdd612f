public import Hummingbird

/// The request context every Herald route runs with; front doors derive narrower ones from it.
public struct HeraldRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }
}
