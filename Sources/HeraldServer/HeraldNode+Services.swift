import HeraldCluster
import HeraldDelivery
import HeraldFrontDoor
import HeraldStore
import ServiceLifecycle

extension HeraldNode {
    /// Listed so that graceful shutdown, which runs in reverse, stops the front doors' work
    /// first (draining their queued pushes), then closes provider connections, then posts the
    /// last feedback, then closes the store.
    static func makeServices(
        _ basis: Basis,
        log: any CommandLog,
        cluster: Cluster?,
        delivery: Delivery,
        frontDoors: [any FrontDoor],
        listeners: Listeners
    ) -> [any Service] {
        var services: [any Service] = [StoreService(store: basis.store, journal: basis.journal)]
        if let cluster {
            services.append(ClusterLogService(backend: cluster.backend, forwarder: cluster.forwarder))
            services.append(cluster.membership)
            // On the wall clock, not `basis.clock`: tests that step the node's clock to move one
            // push's back-off must not also step (or count as sleeping) the log's upkeep.
            services.append(Self.makeLogWindowKeeper(basis, cluster: cluster, clock: ContinuousClock()))
        } else {
            services.append(Self.makeLocalLogTrimmer(basis, clock: ContinuousClock()))
        }
        services.append(LogFollower(log: log, view: basis.store.view, logger: basis.logger))
        if let feedback = delivery.feedback {
            services.append(DrainingService(work: { await feedback.run() }, finish: { feedback.finish() }))
        }
        if let providers = delivery.providers { services.append(DeliveryService(providers: providers)) }
        for frontDoor in frontDoors { services.append(contentsOf: frontDoor.services) }
        if let acceptedPushes = delivery.acceptedPushes, acceptedPushes.journal != nil {
            // After the front doors have made their queues: what no queue claims is delivered here.
            services.append(UnclaimedPushesService(acceptedPushes: acceptedPushes))
        }
        if let operations = listeners.operations { services.append(operations) }
        // Last, so it stops first: nothing is forwarded here once shutdown begins.
        if let forwarded = listeners.forwarded { services.append(forwarded) }
        return services
    }

    private static func makeLogWindowKeeper<C: Clock<Duration>>(_ basis: Basis, cluster: Cluster, clock: C) -> any Service {
        let settings = basis.configuration.cluster
        var configuration = LogWindowKeeper<C>.Configuration(
            retention: LogRetention(revisions: UInt64(settings.logRetention), duration: settings.logRetentionDuration)
        )
        configuration.interval = settings.trimInterval
        let view = basis.store.view
        return LogWindowKeeper(
            configuration: configuration,
            backend: cluster.backend.window,
            log: cluster.log,
            membership: cluster.membership,
            appliedPosition: { try view.appliedPosition() },
            clock: clock,
            metrics: LogWindowMetrics(factory: basis.metrics),
            logger: basis.logger
        )
    }

    private static func makeLocalLogTrimmer<C: Clock<Duration>>(_ basis: Basis, clock: C) -> any Service {
        let store = basis.configuration.store
        let configuration = LocalLogTrimmer<C>.Configuration(
            retention: LogRetention(revisions: UInt64(store.logRetention), duration: store.logRetentionDuration)
        )
        return LocalLogTrimmer(configuration: configuration, store: basis.store, clock: clock, logger: basis.logger)
    }
}
