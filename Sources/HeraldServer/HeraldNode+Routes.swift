import HeraldCluster
import HeraldFrontDoor
import HeraldStore
import Hummingbird

extension HeraldNode {
    /// The node's routers: the API port's, and those of the listeners that take some of its
    /// routes away from it.
    struct Routes {
        /// Probes, metrics and `/cluster`, every front door's routes, and, unless the cluster
        /// has mutual TLS, what other nodes forward.
        let api: Router<HeraldRequestContext>
        /// Probes, metrics and `/cluster` again, when `server.operations-port` is set.
        let operations: Router<HeraldRequestContext>?
        /// What other nodes forward, when the cluster has mutual TLS.
        let forwarded: Router<HeraldRequestContext>?
        /// What the API listener answers from the pipeline; `nil` with `server.direct-routes: false`.
        let direct: DirectRouting?
    }

    /// Metrics come first, so that they see every route of the API port.
    static func makeRoutes(_ basis: Basis, log: any CommandLog, cluster: Cluster?, delivery: Delivery, frontDoors: [any FrontDoor]) -> Routes {
        // HEAD is answered wherever GET is, as RFC 9110 asks of every server.
        let router = Router(context: HeraldRequestContext.self, options: .autoGenerateHeadEndpoints)
        let requestMetrics = HTTPRequestMetrics(factory: basis.metrics)
        router.add(middleware: HTTPMetricsMiddleware(requestMetrics))
        router.add(middleware: TransferCodingMiddleware())
        let operations = Self.makeOperationsRoutes(basis, log: log, cluster: cluster, delivery: delivery)
        operations.register(on: router)
        let clusterRoutes = ClusterRoutes(
            membership: cluster?.membership,
            log: log,
            view: basis.store.view,
            digestToken: cluster == nil ? basis.configuration.metrics.bearerToken ?? basis.configuration.api.bearerToken : basis.configuration.cluster.secret,
            digesting: OneAtATime()
        )
        clusterRoutes.register(on: router)
        let statusRoutes = StatusRoutes(
            operations: operations,
            cluster: clusterRoutes,
            endpoints: basis.configuration.apps.mapValues(\.summariesBySection),
            // On the API port it shows app names, endpoints and member addresses to whoever
            // reaches that port: without a metrics token the API's guards it.
            metricsToken: basis.configuration.metrics.bearerToken
                ?? (basis.configuration.server.operationsPort == nil ? basis.configuration.api.bearerToken : nil)
        )
        // The page is where probes are: with an operations port, only there.
        if basis.configuration.server.operationsPort == nil { statusRoutes.register(on: router) }
        let operationsRouter = Self.makeOperationsRouter(basis, operations: operations, cluster: clusterRoutes, status: statusRoutes)
        // Every front door's routes carry the API's authentication; their paths stay their own.
        let api = router.group()
        if let token = basis.configuration.api.bearerToken {
            api.add(middleware: BearerTokenMiddleware(token: token))
        }
        for frontDoor in frontDoors { frontDoor.registerRoutes(on: api) }
        APNSChannelRoutes(providers: delivery.providers).register(on: api)
        for frontDoor in frontDoors { frontDoor.registerPublicRoutes(on: router) }
        let forwarded = Self.addForwardedRoutes(to: router, basis, cluster: cluster, frontDoors: frontDoors, deadTokens: delivery.deadTokens)
        let direct = DirectRouting(
            routes: frontDoors.flatMap(\.directRoutes),
            bearerToken: basis.configuration.api.bearerToken,
            metrics: requestMetrics,
            serverName: Self.apiServerName
        )
        return Routes(api: router, operations: operationsRouter, forwarded: forwarded, direct: basis.configuration.server.directRoutes ? direct : nil)
    }

    private static func makeOperationsRoutes(_ basis: Basis, log: any CommandLog, cluster: Cluster?, delivery: Delivery) -> OperationsRoutes {
        OperationsRoutes(
            store: basis.store,
            log: log,
            readyLag: cluster == nil ? 0 : UInt64(basis.configuration.cluster.readyLag),
            registry: basis.metricsRegistry,
            storeMetrics: StoreMetrics(store: basis.store, log: log, factory: basis.metrics),
            clusterMetrics: cluster.map { ClusterMetrics(membership: $0.membership, factory: basis.metrics) },
            membership: cluster?.membership,
            metricsToken: basis.configuration.metrics.bearerToken,
            delivery: delivery.providers,
            acceptedPushes: delivery.acceptedPushes
        )
    }

    /// Probes and scrapes on a listener of their own: API clients holding every connection of
    /// the API port cannot make the node look dead.
    private static func makeOperationsRouter(_ basis: Basis, operations: OperationsRoutes, cluster: ClusterRoutes, status: StatusRoutes) -> Router<HeraldRequestContext>? {
        guard basis.configuration.server.operationsPort != nil else { return nil }
        let router = Router(context: HeraldRequestContext.self, options: .autoGenerateHeadEndpoints)
        operations.register(on: router)
        cluster.register(on: router)
        status.register(on: router)
        return router
    }

    /// What other nodes forward here; only they know the secret. With mutual TLS it is served on
    /// its own listener, to clients holding a certificate of the cluster's CA: the router
    /// returned. Without, on the API port, added to `apiRouter`.
    private static func addForwardedRoutes(
        to apiRouter: Router<HeraldRequestContext>,
        _ basis: Basis,
        cluster: Cluster?,
        frontDoors: [any FrontDoor],
        deadTokens: RegistryDeadTokenHandler
    ) -> Router<HeraldRequestContext>? {
        guard let secret = basis.configuration.cluster.secret, let cluster else { return nil }
        let router: Router<HeraldRequestContext> = cluster.tls == nil ? apiRouter : Router(context: HeraldRequestContext.self)
        let forwarded = router.group()
        forwarded.add(middleware: BearerTokenMiddleware(token: secret, realm: "herald-cluster"))
        forwarded.add(middleware: ForwardedFromMiddleware())
        for frontDoor in frontDoors { frontDoor.registerInternalRoutes(on: forwarded) }
        DeadTokenRoutes(handler: deadTokens, routing: PartitionRouting(forwarder: cluster.forwarder)).register(on: forwarded)
        SnapshotRoutes(store: basis.store, directory: basis.configuration.store.path, serving: OneAtATime()).register(on: forwarded)
        return cluster.tls == nil ? nil : router
    }
}
