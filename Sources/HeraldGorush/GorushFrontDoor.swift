import HeraldDelivery
public import HeraldFrontDoor
public import Hummingbird
public import ServiceLifecycle

/// gorush's `/api/push` on the node's delivery pool; mounted whenever an app is configured.
public struct GorushFrontDoor: FrontDoor {
    /// The name its accepted pushes are kept under in the node's journal.
    public static let queueOwner = "gorush"

    let routes: GorushRoutes<HeraldRequestContext>
    let dispatcher: DeliveryQueue?
    let configuration: GorushConfiguration

    public static func make(configuration: GorushConfiguration, context: FrontDoorContext) throws -> GorushFrontDoor? {
        guard let providers = context.delivery else { return nil }
        var routes = GorushRoutes<HeraldRequestContext>.Configuration()
        let statistics = GorushStatistics(factory: context.metrics)
        let dispatcher = configuration.sync ? nil : context.queue(owner: Self.queueOwner, limit: configuration.queueLimit) { pushes in
            await GorushRoutes<HeraldRequestContext>.deliverAccepted(pushes, providers: providers, statistics: statistics)
        }
        routes.dispatcher = dispatcher
        routes.pending = configuration.sync ? PendingLimit(configuration.queueLimit) : nil
        if configuration.rateLimit > 0 {
            routes.clientLimiter = SenderRateLimiter(perMinute: configuration.rateLimit, capacity: 100_000, clock: context.clock)
        }
        routes.limits.notifications = configuration.maximumNotifications
        routes.limits.tokens = configuration.maximumTokens
        // A request larger than the queue could never be taken.
        routes.limits.targets = min(configuration.maximumTargets, configuration.queueLimit)
        routes.configurationText = context.configurationText
        routes.idempotency = GorushIdempotency(markers: context.markers, routing: context.routing, window: configuration.idempotencyWindow)
        return GorushFrontDoor(
            routes: GorushRoutes(providers: providers, statistics: statistics, configuration: routes),
            dispatcher: dispatcher,
            configuration: configuration
        )
    }

    public func registerRoutes(on router: some RouterMethods<HeraldRequestContext>) {
        self.routes.register(on: router)
    }

    public var directRoutes: [any DirectRoute] { [self.routes] }

    public func registerInternalRoutes(on router: some RouterMethods<HeraldRequestContext>) {
        self.routes.registerInternal(on: router)
    }

    public var services: [any Service] {
        guard let dispatcher = self.dispatcher else { return [] }
        return [DrainingService(work: { await dispatcher.run() }, finish: { dispatcher.finish() })]
    }

    public var summary: FrontDoorSummary {
        let mode = self.configuration.sync ? "sync: answers with the failures" : "async: answers at once, failures to the feedback webhook"
        return FrontDoorSummary("front door: gorush POST /api/push (\(mode))")
    }
}
