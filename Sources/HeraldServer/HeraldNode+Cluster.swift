import HeraldCluster
import HeraldStore
import Logging
import ServiceLifecycle

extension HeraldNode {
    /// A node's part in a cluster: the backend (the shared log and membership's leases), this
    /// node's membership and forwarding, and the mutual TLS between nodes when `cluster.tls-*`
    /// sets it.
    struct Cluster {
        let backend: any ClusterBackend
        let membership: Membership
        let forwarder: ClusterForwarder
        let tls: ClusterTLS?

        var log: any CommandLog { self.backend.log }

        /// For a start-up that failed: nothing will run, and the HTTP clients must not outlive it.
        func shutdownInBackground() {
            self.backend.shutdownInBackground()
            self.forwarder.shutdownInBackground()
        }
    }

    /// `nil` alone, when `cluster.etcd-endpoints` is empty.
    static func makeCluster(_ basis: Basis, backend backendType: any ConfigurableClusterBackend.Type) throws -> Cluster? {
        let cluster = basis.configuration.cluster
        guard cluster.isEnabled else { return nil }
        let tls = cluster.usesTLS ? try ClusterTLS(cluster) : nil
        let view = basis.store.view
        let backend = try backendType.make(
            ClusterBackendSettings(
                endpoints: cluster.etcdEndpoints,
                requestTimeout: cluster.requestTimeout,
                prefix: cluster.prefix,
                partitions: cluster.partitions,
                nodeID: basis.configuration.nodeID,
                cipher: basis.store.cipher,
                appliedPosition: { try view.appliedPosition() },
                metrics: basis.metrics,
                logger: basis.logger
            )
        )
        let membership = Membership(
            configuration: Self.membershipConfiguration(basis.configuration, log: backend.log, view: view),
            backend: backend.membership,
            logger: basis.logger
        )
        let forwarder = ClusterForwarder(membership: membership, secret: cluster.secret ?? "", requestTimeout: cluster.requestTimeout * 2, tls: tls?.client)
        return Cluster(backend: backend, membership: membership, forwarder: forwarder, tls: tls)
    }

    /// The node joins once its view trails the log by `cluster.ready-lag` at most: before, it
    /// would own partitions it cannot write for.
    private static func membershipConfiguration(_ configuration: HeraldConfiguration, log: any CommandLog, view: LMDBRegistryView) -> Membership.Configuration {
        let cluster = configuration.cluster
        var membership = Membership.Configuration(nodeID: configuration.nodeID, url: configuration.advertiseURL)
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
        return membership
    }
}
