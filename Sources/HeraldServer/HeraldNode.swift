public import HeraldStore
public import Hummingbird
public import Logging
import Metrics
public import NIOCore
public import Prometheus
import ServiceLifecycle
import UnixSignals
public import HeraldDelivery
import HeraldGorush
public import HeraldStatus
import NIOPosix

/// A single Herald node, assembled from its configuration: the store, the log follower and the
/// HTTP server, as services in dependency order. `herald serve` runs them; tests do too.
public struct HeraldNode: Sendable {
    public let configuration: HeraldConfiguration
    public let store: LocalStore
    public let metrics: PrometheusCollectorRegistry
    /// The delivery pool of the configured apps; `nil` when none is configured.
    public let delivery: DeliveryPool?
    /// The Status front door; `nil` unless `status.identity-key-file` is set.
    public let status: StatusServer?
    /// The HTTP application; it also runs the store and log follower services, and on graceful
    /// shutdown stops the server first, then the follower, then closes the store.
    public let application: Application<RouterResponder<HeraldRequestContext>>

    /// Opens the store and builds the services. `onServerRunning` receives the bound address
    /// (useful with port 0).
    public static func build(
        configuration: HeraldConfiguration,
        logger: Logger,
        configurationText: String? = nil,
        onServerRunning: @escaping @Sendable (SocketAddress?) async -> Void = { _ in }
    ) throws -> HeraldNode {
        let store = try LocalStore(path: configuration.store.path, configuration: configuration.store.environment)
        let metricsRegistry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: metricsRegistry)
        factory.durationHistogramBuckets[DeliveryMetrics.latency] = [
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .seconds(1), .seconds(5), .seconds(30),
        ]
        factory.durationHistogramBuckets[HTTPMetricsMiddleware<HeraldRequestContext>.durationLabel] = [
            .microseconds(250), .milliseconds(1), .milliseconds(5), .milliseconds(25), .milliseconds(100),
            .milliseconds(500), .seconds(2), .seconds(10),
        ]

        let registry = Registry(log: store.log, view: store.view)
        let feedback = configuration.feedback.url.map { url in
            var webhook = FeedbackWebhook.Configuration(url: url, bearerToken: configuration.feedback.bearerToken)
            webhook.requestTimeout = configuration.feedback.timeout
            webhook.maximumAttempts = configuration.feedback.maximumAttempts
            webhook.queueLimit = configuration.feedback.queueLimit
            return FeedbackWebhook(configuration: webhook, metrics: factory, logger: logger)
        }
        let delivery: DeliveryPool?
        do {
            delivery = try configuration.makeDeliveryPool(
                group: MultiThreadedEventLoopGroup.singleton,
                metrics: DeliveryMetrics(factory: factory),
                deadTokenHandlers: [RegistryDeadTokenHandler(registry: registry, logger: logger)],
                failureObservers: feedback.map { [$0] } ?? [],
                logger: logger
            )
        } catch {
            store.environment.close()
            throw error
        }

        let router = Router(context: HeraldRequestContext.self)
        router.add(middleware: HTTPMetricsMiddleware(factory: factory))
        OperationsRoutes(
            store: store,
            registry: metricsRegistry,
            storeMetrics: StoreMetrics(store: store, factory: factory),
            metricsToken: configuration.metrics.bearerToken,
            delivery: delivery
        ).register(on: router)
        var dispatcher: DeliveryDispatcher?
        if let delivery {
            var gorush = GorushRoutes<HeraldRequestContext>.Configuration()
            if !configuration.gorush.sync { dispatcher = DeliveryDispatcher(limit: configuration.gorush.queueLimit) }
            gorush.dispatcher = dispatcher
            gorush.configurationText = configurationText
            // Routes added through the group carry its middleware; the paths stay gorush's.
            let api = router.group()
            if let token = configuration.api.bearerToken {
                api.add(middleware: BearerTokenMiddleware(token: token))
            }
            GorushRoutes<HeraldRequestContext>(pool: delivery, statistics: GorushStatistics(factory: factory), configuration: gorush).register(on: api)
        }
        let status: StatusServer?
        let statusDispatcher = DeliveryDispatcher(limit: configuration.status.queueLimit)
        do {
            status = try configuration.makeStatusServer(
                store: store,
                registry: registry,
                delivery: delivery,
                dispatcher: statusDispatcher,
                metrics: factory,
                logger: logger
            )
        } catch {
            store.environment.close()
            throw error
        }
        if let status {
            let api = router.group()
            if let token = configuration.api.bearerToken {
                api.add(middleware: BearerTokenMiddleware(token: token))
            }
            StatusRoutes<HeraldRequestContext>(server: status).register(on: api)
        }
        // Listed so that graceful shutdown, which runs in reverse, drains async pushes first,
        // then closes provider connections, then posts the last feedback, then closes the store.
        var services: [any Service] = [StoreService(store: store), store.follower(logger: logger)]
        if let feedback { services.append(DrainingService(work: { await feedback.run() }, finish: { feedback.finish() })) }
        if let delivery { services.append(DeliveryService(pool: delivery)) }
        if let dispatcher { services.append(DrainingService(work: { await dispatcher.run() }, finish: { dispatcher.finish() })) }
        if status != nil, configuration.status.gorushURL == nil {
            services.append(DrainingService(work: { await statusDispatcher.run() }, finish: { statusDispatcher.finish() }))
        }
        if let status, let url = configuration.status.nwakuURL {
            var relay = NwakuRelayAdapter.Configuration(url: url)
            relay.pubsubTopic = configuration.status.pubsubTopic
            services.append(NwakuRelayService(adapter: NwakuRelayAdapter(configuration: relay, server: status, logger: logger)))
        }

        let application = Application(
            router: router,
            configuration: .init(
                address: .hostname(configuration.server.host, port: configuration.server.port),
                serverName: "herald"
            ),
            services: services,
            onServerRunning: { channel in await onServerRunning(channel.localAddress) },
            logger: logger
        )
        return HeraldNode(
            configuration: configuration,
            store: store,
            metrics: metricsRegistry,
            delivery: delivery,
            status: status,
            application: application
        )
    }

    /// Runs every service until SIGTERM or SIGINT (or the group's graceful shutdown), then stops
    /// them in reverse order and returns.
    public func run(logger: Logger) async throws {
        var configuration = ServiceGroupConfiguration(
            services: [self.application],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        // A request stuck past the deadline must not hold the node up forever: the group then
        // cancels what is left, and the store still closes on cancellation.
        configuration.maximumGracefulShutdownDuration = self.configuration.server.shutdownTimeout
        try await ServiceGroup(configuration: configuration).run()
    }
}
