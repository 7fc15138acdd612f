import CoreMetrics
import HeraldCluster

/// Gauges of cluster membership, refreshed at scrape time.
struct ClusterMetrics: Sendable {
    private let membership: Membership
    private let members: Gauge
    private let owned: Gauge
    private let reachable: Gauge

    init(membership: Membership, factory: any MetricsFactory) {
        self.membership = membership
        self.members = Gauge(label: "herald_cluster_members", factory: factory)
        self.owned = Gauge(label: "herald_cluster_owned_partitions", factory: factory)
        self.reachable = Gauge(label: "herald_cluster_etcd_reachable", factory: factory)
    }

    func refresh() {
        let snapshot = self.membership.snapshot
        self.members.record(snapshot.members.count)
        self.owned.record(snapshot.map.owned(by: self.membership.configuration.nodeID).count)
        self.reachable.record(snapshot.backendReachable ? 1 : 0)
    }
}
