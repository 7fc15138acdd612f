public import HeraldCluster
import HeraldConfig
public import HeraldDelivery
public import HeraldFrontDoor
public import HeraldStore
public import Hummingbird
import HummingbirdCore
public import Logging
import Metrics
public import NIOCore
import NIOPosix
public import Prometheus
import ServiceLifecycle
import UnixSignals

/// A single Herald node, assembled from its configuration: the store, the log follower, the
/// delivery pool, the enabled front doors and the HTTP server, as services in dependency order.
/// `herald serve` runs them; tests do too.
public struct HeraldNode: Sendable {
    public let configuration: HeraldConfiguration
    public let store: LocalStore
    /// The command log the view follows: the store's own alone, etcd's in a cluster.
    public let log: any CommandLog
    public let metrics: PrometheusCollectorRegistry
    /// The delivery pool of the configured apps; `nil` when none is configured.
    public let delivery: DeliveryPool?
    /// The front doors the configuration enables, in `frontDoors` order.
    public let frontDoors: [any FrontDoor]
    /// In a cluster: membership, the partition map and forwarding. `nil` alone.
    public let router: ClusterRouter?
    /// The HTTP application; it also runs the other services, and on graceful shutdown stops the
    /// server first, then the front doors' services, delivery and the follower, then closes the
    /// store.
    public let application: Application<RouterResponder<HeraldRequestContext>>

    /// Opens the store and builds the services. `onServerRunning` receives the bound address
    /// (useful with port 0). `frontDoors` is the list the configuration was loaded with; `clock`
    /// times delivery deadlines, back-off and token renewal.
    public static func build(
        configuration: HeraldConfiguration,
        logger: Logger,
        configurationText: String? = nil,
        frontDoors frontDoorTypes: [any FrontDoor.Type] = HeraldNode.frontDoors,
        clock: any Clock<Duration> = ContinuousClock(),
        onServerRunning: @escaping @Sendable (SocketAddress?) async -> Void = { _ in }
    ) throws -> HeraldNode {
        let store: LocalStore
        let cipher = try configuration.storeCipher().cipher
        do {
            store = try LocalStore(path: configuration.store.path, configuration: configuration.store.environment, cipher: cipher)
        } catch {
            throw ConfigurationError(.invalidValue, "configuration key store.path: cannot open the store at \(configuration.store.path): \(error)")
        }
        do {
            return try Self.build(
                configuration: configuration,
                store: store,
                logger: logger,
                configurationText: configurationText,
                frontDoorTypes: frontDoorTypes,
                clock: clock,
                onServerRunning: onServerRunning
            )
        } catch {
            store.environment.close()
            throw error
        }
    }

    private static func build(
        configuration: HeraldConfiguration,
        store: LocalStore,
        logger: Logger,
        configurationText: String?,
        frontDoorTypes: [any FrontDoor.Type],
        clock: any Clock<Duration>,
        onServerRunning: @escaping @Sendable (SocketAddress?) async -> Void
    ) throws -> HeraldNode {
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

        // Alone, the log is the store's own; in a cluster it is etcd, applied to the same view.
        let clusterTLS = configuration.cluster.isEnabled && configuration.cluster.usesTLS ? try ClusterTLS(configuration.cluster) : nil
        let cluster = configuration.cluster.isEnabled ? Self.makeCluster(configuration, view: store.view, cipher: store.cipher, tls: clusterTLS, metrics: factory, logger: logger) : nil
        do {
            return try Self.build(
                configuration: configuration,
                store: store,
                cluster: cluster,
                clusterTLS: clusterTLS,
                logger: logger,
                configurationText: configurationText,
                frontDoorTypes: frontDoorTypes,
                clock: clock,
                factory: factory,
                metricsRegistry: metricsRegistry,
                onServerRunning: onServerRunning
            )
        } catch {
            // Their HTTP clients must not outlive a start-up that failed.
            cluster?.log.client.shutdownInBackground()
            cluster?.router.shutdownInBackground()
            throw error
        }
    }

    private static func build(
        configuration: HeraldConfiguration,
        store: LocalStore,
        cluster: (log: EtcdCommandLog, membership: Membership, router: ClusterRouter)?,
        clusterTLS: ClusterTLS?,
        logger: Logger,
        configurationText: String?,
        frontDoorTypes: [any FrontDoor.Type],
        clock: any Clock<Duration>,
        factory: PrometheusMetricsFactory,
        metricsRegistry: PrometheusCollectorRegistry,
        onServerRunning: @escaping @Sendable (SocketAddress?) async -> Void
    ) throws -> HeraldNode {
        let clusterLog = cluster?.log
        let log: any CommandLog = clusterLog ?? store.log
        let registry = Registry(log: log, view: store.view)
        let feedback = configuration.feedback.url.map { url in
            var webhook = FeedbackWebhook.Configuration(url: url, bearerToken: configuration.feedback.bearerToken)
            webhook.requestTimeout = configuration.feedback.timeout
            webhook.maximumAttempts = configuration.feedback.maximumAttempts
            webhook.queueLimit = configuration.feedback.queueLimit
            return FeedbackWebhook(configuration: webhook, metrics: factory, logger: logger, clock: clock)
        }
        let deadTokens = RegistryDeadTokenHandler(registry: registry, router: cluster?.router, logger: logger)
        let delivery = try configuration.makeDeliveryPool(
            context: ProviderContext(
                group: MultiThreadedEventLoopGroup.singleton,
                metrics: DeliveryMetrics(factory: factory),
                logger: logger,
                clock: clock
            ),
            deadTokenHandlers: [deadTokens],
            failureObservers: feedback.map { [$0] } ?? []
        )

        let context = FrontDoorContext(
            registry: registry,
            markers: store.markers,
            delivery: delivery,
            metrics: factory,
            logger: logger,
            configurationText: configurationText,
            router: cluster?.router,
            clock: clock,
            deadTokens: deadTokens
        )
        let frontDoors = try frontDoorTypes.compactMap { try Self.make($0, configuration: configuration, context: context) }

        let router = Router(context: HeraldRequestContext.self)
        router.add(middleware: HTTPMetricsMiddleware(factory: factory))
        let operations = OperationsRoutes(
            store: store,
            log: log,
            readyLag: clusterLog == nil ? 0 : UInt64(configuration.cluster.readyLag),
            registry: metricsRegistry,
            storeMetrics: StoreMetrics(store: store, log: log, factory: factory),
            clusterMetrics: cluster.map { ClusterMetrics(membership: $0.membership, factory: factory) },
            membership: cluster?.membership,
            metricsToken: configuration.metrics.bearerToken,
            delivery: delivery
        )
        operations.register(on: router)
        let clusterRoutes = ClusterRoutes(
            membership: cluster?.membership,
            log: log,
            view: store.view,
            digestToken: cluster == nil ? configuration.metrics.bearerToken : configuration.cluster.secret
        )
        clusterRoutes.register(on: router)
        let requestTimeoutCounter = Counter(label: "herald_http_request_timeouts_total", factory: factory)
        let requestTimeouts: @Sendable () -> Void = { requestTimeoutCounter.increment() }
        var operationsApplication: (any Service)?
        if let port = configuration.server.operationsPort {
            // Probes and scrapes on a listener of their own: API clients holding every
            // connection of the API port cannot make the node look dead.
            let operationsRouter = Router(context: HeraldRequestContext.self)
            operations.register(on: operationsRouter)
            clusterRoutes.register(on: operationsRouter)
            operationsApplication = Application(
                router: operationsRouter,
                server: .heraldHTTP1(idleTimeout: configuration.server.idleTimeout, requestTimeout: configuration.server.requestTimeout, onTimeout: requestTimeouts),
                configuration: .init(
                    address: .hostname(configuration.server.host, port: port),
                    serverName: "herald-operations",
                    availableConnectionsDelegate: MaximumAvailableConnections(Self.operationsConnections, logger: logger)
                ),
                logger: logger
            )
        }
        // Every front door's routes carry the API's authentication; their paths stay their own.
        let api = router.group()
        if let token = configuration.api.bearerToken {
            api.add(middleware: BearerTokenMiddleware(token: token))
        }
        for frontDoor in frontDoors { frontDoor.registerRoutes(on: api) }
        for frontDoor in frontDoors { frontDoor.registerPublicRoutes(on: router) }
        var internalApplication: (any Service)?
        if let secret = configuration.cluster.secret, let cluster {
            // What other nodes forward here; only they know the secret. With mutual TLS it is
            // served on its own listener, to clients holding a certificate of the cluster's CA.
            let internalRouter: Router<HeraldRequestContext> = clusterTLS == nil ? router : Router(context: HeraldRequestContext.self)
            let forwarded = internalRouter.group()
            forwarded.add(middleware: BearerTokenMiddleware(token: secret, realm: "herald-cluster"))
            for frontDoor in frontDoors { frontDoor.registerInternalRoutes(on: forwarded) }
            DeadTokenRoutes(handler: deadTokens, router: cluster.router).register(on: forwarded)
            if let clusterTLS {
                internalApplication = Application(
                    router: internalRouter,
                    server: .heraldHTTP1(
                        idleTimeout: configuration.server.idleTimeout,
                        requestTimeout: configuration.server.requestTimeout,
                        tls: clusterTLS.server,
                        onTimeout: requestTimeouts
                    ),
                    configuration: .init(address: .hostname(configuration.server.host, port: configuration.cluster.internalPort), serverName: "herald-internal"),
                    logger: logger
                )
            }
        }

        // Listed so that graceful shutdown, which runs in reverse, stops the front doors' work
        // first (draining their queued pushes), then closes provider connections, then posts the
        // last feedback, then closes the store.
        var services: [any Service] = [StoreService(store: store)]
        if let cluster {
            services.append(ClusterLogService(log: cluster.log, router: cluster.router))
            services.append(cluster.membership)
        }
        services.append(LogFollower(log: log, view: store.view, logger: logger))
        if let feedback { services.append(DrainingService(work: { await feedback.run() }, finish: { feedback.finish() })) }
        if let delivery { services.append(DeliveryService(pool: delivery)) }
        for frontDoor in frontDoors { services.append(contentsOf: frontDoor.services) }
        if let operationsApplication, let port = configuration.server.operationsPort {
            services.append(ListenerService(listener: operationsApplication, keys: "server.host and server.operations-port", address: "\(configuration.server.host):\(port)"))
        }
        // Last, so it stops first: nothing is forwarded here once shutdown begins.
        if let internalApplication {
            services.append(
                ListenerService(listener: internalApplication, keys: "server.host and cluster.internal-port", address: "\(configuration.server.host):\(configuration.cluster.internalPort)")
            )
        }

        let application = Application(
            router: router,
            server: .heraldHTTP1(idleTimeout: configuration.server.idleTimeout, requestTimeout: configuration.server.requestTimeout, onTimeout: requestTimeouts),
            configuration: .init(
                address: .hostname(configuration.server.host, port: configuration.server.port),
                serverName: "herald",
                backlog: 1024,
                availableConnectionsDelegate: MaximumAvailableConnections(
                    Self.connectionLimit(configured: configuration.server.maxConnections, openFiles: FileDescriptorLimit.current),
                    logger: logger
                )
            ),
            services: services,
            onServerRunning: { channel in await onServerRunning(channel.localAddress) },
            logger: logger
        )
        return HeraldNode(
            configuration: configuration,
            store: store,
            log: log,
            metrics: metricsRegistry,
            delivery: delivery,
            frontDoors: frontDoors,
            router: cluster?.router,
            application: application
        )
    }

    /// Connections of the operations port: probes and a few scrapers.
    static let operationsConnections = 64
    /// Descriptors kept for everything but API connections: the store, provider and etcd
    /// connections, the operations port, the feedback webhook.
    static let reservedDescriptors = 256

    /// The API port's connection cap: the configured one, or fewer when the open-file limit could
    /// not hold them beside what the node needs besides.
    public static func connectionLimit(configured: Int, openFiles: Int) -> Int {
        max(min(configured, openFiles - Self.reservedDescriptors - Self.operationsConnections), 16)
    }

    /// The etcd log and this node's membership, sharing one etcd client.
    private static func makeCluster(
        _ configuration: HeraldConfiguration,
        view: LMDBRegistryView,
        cipher: StoreCipher?,
        tls: ClusterTLS?,
        metrics: any MetricsFactory,
        logger: Logger
    ) -> (log: EtcdCommandLog, membership: Membership, router: ClusterRouter) {
        let cluster = configuration.cluster
        var clientConfiguration = EtcdClient.Configuration(endpoints: cluster.etcdEndpoints)
        clientConfiguration.requestTimeout = cluster.requestTimeout
        let client = EtcdClient(configuration: clientConfiguration)
        var logConfiguration = EtcdCommandLog.Configuration()
        logConfiguration.cipher = cipher
        logConfiguration.prefix = cluster.prefix
        logConfiguration.partitions = cluster.partitions
        logConfiguration.writer = configuration.nodeID
        let log = EtcdCommandLog(client: client, configuration: logConfiguration, appliedPosition: { try view.appliedPosition() }, metrics: metrics, logger: logger)
        var membership = Membership.Configuration(nodeID: configuration.nodeID, url: configuration.advertiseURL)
        membership.prefix = cluster.prefix
        membership.partitions = cluster.partitions
        membership.leaseTTL = Int64(cluster.leaseTTL)
        let readyLag = UInt64(cluster.readyLag)
        membership.readyToJoin = {
            // Polls the head (the partition heads, a small read) while the follower catches up.
            while !Task.isCancelled, !Task.isShuttingDownGracefully {
                if let head = try? await log.head(), let applied = try? view.appliedPosition(), head <= applied + readyLag { return }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        let members = Membership(configuration: membership, client: client, logger: logger)
        return (log, members, ClusterRouter(membership: members, secret: cluster.secret ?? "", requestTimeout: cluster.requestTimeout * 2, tls: tls?.client))
    }

    private static func make<Door: FrontDoor>(_ type: Door.Type, configuration: HeraldConfiguration, context: FrontDoorContext) throws -> (any FrontDoor)? {
        try Door.make(configuration: configuration.frontDoors[Door.Configuration.self], context: context)
    }

    /// The running front door of type `type`, if the configuration enables it.
    public func frontDoor<Door: FrontDoor>(_ type: Door.Type) -> Door? {
        self.frontDoors.lazy.compactMap { $0 as? Door }.first
    }

    /// Runs every service until SIGTERM or SIGINT (or the group's graceful shutdown), then stops
    /// them in reverse order and returns.
    /// Checks, before anything serves, that the store's view belongs to the log it is about to
    /// follow, and throws `StoreError.wrongLog` when it does not. The follower checks too, but a
    /// refusal there stops a server that may still be starting up, and a shutdown racing the
    /// accept loop's start can hang in swift-async-algorithms' `merge` (apple/swift-async-algorithms
    /// #430). A log that cannot be asked now (etcd unreachable) is left to the follower, which
    /// retries.
    public func checkLogSource() async throws {
        guard let source = try? await self.log.source() else { return }
        try await self.store.view.claimSource(source)
    }

    public func run(logger: Logger) async throws {
        do {
            try await self.checkLogSource()
        } catch {
            // Nothing will run: the HTTP clients the cluster made must be shut down by hand.
            try? await (self.log as? EtcdCommandLog)?.client.shutdown()
            try? await self.router?.shutdown()
            throw error
        }
        var configuration = ServiceGroupConfiguration(
            services: [self.application],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        // A request stuck past the deadline must not hold the node up forever: the group then
        // cancels what is left, and the store still closes on cancellation.
        configuration.maximumGracefulShutdownDuration = self.configuration.server.shutdownTimeout
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch {
            let address = "\(self.configuration.server.host):\(self.configuration.server.port)"
            throw ListenerService.configurationError(error, keys: "server.host and server.port", address: address) ?? error
        }
    }
}
