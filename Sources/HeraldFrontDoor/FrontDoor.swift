public import HeraldConfig
public import HeraldStore
public import Hummingbird
public import ServiceLifecycle

/// One wire protocol clients speak to Herald (gorush's `/api/push`, Status, …). It owns its
/// configuration section, builds itself from the node's context, and hands the node its routes,
/// its services and its start-up line; the node mounts the routes behind API authentication and
/// runs the services. Front doors never import each other.
///
/// Adding one is a module with a type conforming to this protocol and one line in
/// `HeraldNode.frontDoors`.
public protocol FrontDoor: Sendable {
    associatedtype Configuration: ConfigurationSectionValue

    /// Builds the front door, or returns `nil` when its configuration leaves it off. Throws
    /// `ConfigurationError` naming the key when something it needs is missing or unreadable.
    static func make(configuration: Configuration, context: FrontDoorContext) throws -> Self?

    /// The key spaces it keeps in the node's store (registration scopes, marker namespaces),
    /// declared in its own folder. The node gathers every enabled door's before building any and
    /// refuses to start when two clash.
    static func storeSpaces(configuration: Configuration) -> StoreSpaces

    /// Adds its routes. The node passes its API group, which requires `api.bearer-token` when set.
    func registerRoutes(on router: some RouterMethods<HeraldRequestContext>)

    /// Routes among those `registerRoutes` adds that the API listener may also answer without
    /// the router (`DirectRoute`), behind the same API authentication.
    var directRoutes: [any DirectRoute] { get }

    /// Adds routes outside the API's authentication, for protocols whose clients cannot send
    /// Herald's bearer token and authenticate their own way (Web Push senders and VAPID).
    func registerPublicRoutes(on router: some RouterMethods<HeraldRequestContext>)

    /// Adds the routes other nodes forward requests to, in a cluster. The node passes a group
    /// that requires `cluster.secret`; nothing there is forwarded again.
    func registerInternalRoutes(on router: some RouterMethods<HeraldRequestContext>)

    /// Its long-lived work (dispatchers, transport adapters), in the order it must start; the node
    /// stops them in reverse, after the HTTP server and before delivery.
    var services: [any Service] { get }

    /// What the start-up log says about it.
    var summary: FrontDoorSummary { get }
}

extension FrontDoor {
    public static func storeSpaces(configuration: Configuration) -> StoreSpaces { StoreSpaces() }

    public var services: [any Service] { [] }

    public var directRoutes: [any DirectRoute] { [] }

    public func registerInternalRoutes(on router: some RouterMethods<HeraldRequestContext>) {}

    public func registerPublicRoutes(on router: some RouterMethods<HeraldRequestContext>) {}
}
