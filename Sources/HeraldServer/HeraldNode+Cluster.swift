import HeraldCluster
import HeraldStore
import Logging
import ServiceLifecycle

extension HeraldNode {
    /// A node's part in a cluster: the etcd log, its membership and forwarding (sharing one etcd
    /// client), and the mutual TLS between nodes when `cluster.tls-*` sets it.
    struct Cluster {
        let log: EtcdCommandLog
        let membership: Membership
        let router: ClusterRouter
        let tls: ClusterTLS?

        /// For a start-up that failed: nothing will run, and the HTTP clients must not outlive it.
        func shutdownInBackground() {
            self.log.client.shutdownInBackground()
            self.router.shutdownInBackground()
        }
    }

    /// `nil` alone, when `cluster.etcd-endpoints` is empty.
    static func makeCluster(_ basis: Basis) throws -> Cluster? {
        let cluster = basis.configuration.cluster
        guard cluster.isEnabled else { return nil }
        let tls = cluster.usesTLS ? try ClusterTLS(cluster) : nil
        var clientConfiguration = EtcdClient.Configuration(endpoints: cluster.etcdEndpoints)
        clientConfiguration.requestTimeout = cluster.requestTimeout
        let client = EtcdClient(configuration: clientConfiguration)
        let log = Self.makeEtcdLog(basis, client: client)
        let membership = Membership(
            configuration: Self.membershipConfiguration(basis.configuration, log: log, view: basis.store.view),
            client: client,
            logger: basis.logger
        )
        let router = ClusterRouter(membership: membership, secret: cluster.secret ?? "", requestTimeout: cluster.requestTimeout * 2, tls: tls?.client)
        return Cluster(log: log, membership: membership, router: router, tls: tls)
    }

    /// The log every node appends to and follows, sealed with the store's key ring.
    private static func makeEtcdLog(_ basis: Basis, client: EtcdClient) -> EtcdCommandLog {
        var configuration = EtcdCommandLog.Configuration()
        configuration.cipher = basis.store.cipher
        configuration.prefix = basis.configuration.cluster.prefix
        configuration.partitions = basis.configuration.cluster.partitions
        configuration.writer = basis.configuration.nodeID
        let view = basis.store.view
        return EtcdCommandLog(client: client, configuration: configuration, appliedPosition: { try view.appliedPosition() }, metrics: basis.metrics, logger: basis.logger)
    }

    /// The node joins once its view trails the log by `cluster.ready-lag` at most: before, it
    /// would own partitions it cannot write for.
    private static func membershipConfiguration(_ configuration: HeraldConfiguration, log: EtcdCommandLog, view: LMDBRegistryView) -> Membership.Configuration {
        let cluster = configuration.cluster
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
        return membership
    }
}
