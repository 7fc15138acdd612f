import HeraldConfig
import HeraldCore
import HeraldCrypto
public import HeraldFrontDoor
import HeraldDelivery
import Logging
public import Hummingbird
public import ServiceLifecycle

/// The Status push-notification server, when `status.identity-key-file` is set: Waku messages
/// over `POST /waku/v1/messages` and, with `status.nwaku-url`, through a nwaku node.
public struct StatusFrontDoor: FrontDoor {
    /// The name its accepted pushes are kept under in the node's journal.
    public static let queueOwner = "status"

    public let server: StatusServer
    let configuration: StatusConfiguration
    /// Hands pushes to the pool after the answer; `nil` when an external gorush delivers.
    let dispatcher: DeliveryQueue?
    let relay: NwakuRelayAdapter?

    /// Delivers through the external gorush when `status.gorush-url` is set, else through the
    /// node's pool.
    public static func make(configuration: StatusConfiguration, context: FrontDoorContext) throws -> StatusFrontDoor? {
        guard let keyFile = configuration.identityKeyFile else { return nil }
        let identity = try StatusIdentity(contentsOfFile: keyFile)
        let pushes: any StatusPushDelivery
        var dispatcher: DeliveryQueue?
        if let url = configuration.gorushURL {
            pushes = StatusGorushForwarder(baseURL: url, logger: context.logger)
        } else if let delivery = context.delivery {
            let logger = context.logger
            let handOver = context.queue(owner: Self.queueOwner, limit: configuration.queueLimit) { notifications in
                await StatusPoolDelivery.deliverAccepted(notifications, providers: delivery, logger: logger)
            }
            dispatcher = handOver
            pushes = StatusPoolDelivery(providers: delivery, dispatcher: handOver, logger: context.logger)
        } else {
            throw ConfigurationError(
                .invalidValue,
                "the Status front door needs a way to push: configure an app (apps.<app>.apns.* or apps.<app>.fcm.*) or status.gorush-url"
            )
        }
        let server = StatusServer(
            identity: identity,
            registry: context.registry,
            markers: context.markers,
            delivery: pushes,
            configuration: Self.serverConfiguration(configuration),
            metrics: context.metrics,
            logger: context.logger,
            clock: context.clock,
            routing: context.routing
        )
        server.joinQueryTopicsAsRegistrationsApply()
        try server.joinStoredQueryTopics()
        let relay = configuration.nwakuURL.map { url in
            var relay = NwakuRelayAdapter.Configuration(url: url)
            relay.pubsubTopic = configuration.pubsubTopic
            return NwakuRelayAdapter(configuration: relay, server: server, logger: context.logger)
        }
        return StatusFrontDoor(server: server, configuration: configuration, dispatcher: dispatcher, relay: relay)
    }

    static func serverConfiguration(_ configuration: StatusConfiguration) -> StatusServer.Configuration {
        var server = StatusServer.Configuration()
        server.deduplicationWindow = configuration.deduplicationWindow
        server.senderRateLimit = configuration.rateLimit
        return server
    }

    public func registerRoutes(on router: some RouterMethods<HeraldRequestContext>) {
        StatusRoutes<HeraldRequestContext>(server: self.server).register(on: router)
    }

    public func registerInternalRoutes(on router: some RouterMethods<HeraldRequestContext>) {
        StatusRoutes<HeraldRequestContext>(server: self.server).registerInternal(on: router)
    }

    /// The dispatcher first, then the relay: the relay stops first and its last answers' pushes
    /// are still drained.
    public var services: [any Service] {
        var services: [any Service] = []
        if let dispatcher = self.dispatcher {
            services.append(DrainingService(work: { await dispatcher.run() }, finish: { dispatcher.finish() }))
        }
        if let relay = self.relay { services.append(NwakuRelayService(adapter: relay)) }
        return services
    }

    /// Clients register against the server's key, so operators need it printed.
    public var summary: FrontDoorSummary {
        FrontDoorSummary(
            "front door: Status POST /waku/v1/messages",
            metadata: [
                "status.public-key": "0x\(Hex.encode(self.server.identity.publicKey.uncompressedRepresentation))",
                "status.push-topic": "\(self.server.identity.partitionedTopic)",
                "status.registration-topic": "\(self.server.identity.personalTopic)",
                "status.query-topics": "\(self.server.queryTopics.count)",
                "status.delivery": "\(self.configuration.gorushURL == nil ? "apps" : "external gorush")",
            ]
        )
    }
}
