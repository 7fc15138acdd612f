public import HeraldCluster
import HeraldConfig
public import HeraldDelivery
public import HeraldFrontDoor
public import HeraldStore
public import Hummingbird
public import Logging
public import NIOCore
public import Prometheus
import ServiceLifecycle
import UnixSignals

/// A single Herald node, assembled from its configuration: the store, the log follower, the
/// delivery pool, the enabled front doors and the HTTP server, as services in dependency order.
/// `herald serve` runs them; tests do too.
public struct HeraldNode: Sendable {
    public let configuration: HeraldConfiguration
    public let store: LocalStore
    /// Pushes and feedback events answered for and not yet ended (`<store.path>/queue`); `nil`
    /// with `delivery.journal: false`.
    public let journal: LMDBWorkJournal?
    /// The command log the view follows: the store's own alone, etcd's in a cluster.
    public let log: any CommandLog
    public let metrics: PrometheusCollectorRegistry
    /// The delivery pool of the configured apps; `nil` when none is configured.
    public let delivery: AppProviders?
    /// The front doors the configuration enables, in `frontDoors` order.
    public let frontDoors: [any FrontDoor]
    /// In a cluster: membership, the partition map and forwarding. `nil` alone.
    public let forwarder: ClusterForwarder?
    /// In a cluster: the shared log and membership's leases. `nil` alone.
    let clusterBackend: (any ClusterBackend)?
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
        clusterBackend: any ConfigurableClusterBackend.Type = HeraldNode.clusterBackend,
        clock: any Clock<Duration> = ContinuousClock(),
        onServerRunning: @escaping @Sendable (SocketAddress?) async -> Void = { _ in }
    ) throws -> HeraldNode {
        let store = try Self.openStore(configuration)
        var cluster: Cluster?
        var journal: LMDBWorkJournal?
        do {
            journal = try Self.openJournal(configuration, store: store, logger: logger)
            let basis = Basis(configuration: configuration, logger: logger, clock: clock, store: store, journal: journal)
            cluster = try Self.makeCluster(basis, backend: clusterBackend)
            // Alone, the log is the store's own; in a cluster it is etcd, applied to the same view.
            let log: any CommandLog = cluster?.log ?? store.log
            let registry = Registry(log: log, view: store.view)
            let delivery = try Self.makeDelivery(basis, registry: registry, cluster: cluster)
            let frontDoors = try Self.makeFrontDoors(frontDoorTypes, basis, registry: registry, delivery: delivery, cluster: cluster, configurationText: configurationText)
            let routes = Self.makeRoutes(basis, log: log, cluster: cluster, delivery: delivery, frontDoors: frontDoors)
            let listeners = Self.makeListeners(basis, routes: routes, clusterTLS: cluster?.tls)
            let services = Self.makeServices(basis, log: log, cluster: cluster, delivery: delivery, frontDoors: frontDoors, listeners: listeners)
            let application = Self.makeAPIApplication(basis, routes: routes, listeners: listeners, services: services, onServerRunning: onServerRunning)
            return HeraldNode(
                configuration: configuration,
                store: store,
                journal: journal,
                log: log,
                metrics: basis.metricsRegistry,
                delivery: delivery.providers,
                frontDoors: frontDoors,
                forwarder: cluster?.forwarder,
                clusterBackend: cluster?.backend,
                application: application
            )
        } catch {
            // A start-up that failed leaves nothing open: the cluster's HTTP clients must not
            // outlive it, and the store is closed.
            cluster?.shutdownInBackground()
            journal?.environment.close()
            store.environment.close()
            throw error
        }
    }

    /// Closes the journal and the store of a node built and never run, and its cluster clients
    /// (running closes them on shutdown).
    public func close() async throws {
        try? await self.forwarder?.shutdown()
        try? await self.clusterBackend?.shutdown()
        try await self.journal?.close()
        try await self.store.close()
    }

    /// The running front door of type `type`, if the configuration enables it.
    public func frontDoor<Door: FrontDoor>(_ type: Door.Type) -> Door? {
        self.frontDoors.lazy.compactMap { $0 as? Door }.first
    }

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

    /// Runs every service until SIGTERM or SIGINT (or the group's graceful shutdown), then stops
    /// them in reverse order and returns.
    public func run(logger: Logger) async throws {
        do {
            try await self.checkLogSource()
        } catch {
            // Nothing will run: the HTTP clients the cluster made must be shut down by hand.
            try? await self.clusterBackend?.shutdown()
            try? await self.forwarder?.shutdown()
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
