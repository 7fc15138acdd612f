import HeraldCluster
import HeraldFrontDoor
import HeraldStore
import Hummingbird

/// `GET /cluster`: this node's view of the cluster, for operators and `herald cluster status`.
struct ClusterRoutes: Sendable {
    let membership: Membership?
    let log: any CommandLog
    let view: any RegistryView

    struct Status: ResponseEncodable {
        var node: String
        var mode: String
        var members: [ClusterMember]
        var partitions: Int
        var owned: [Int]
        var appliedRevision: UInt64
        var logHead: UInt64
        var lag: UInt64
        var etcd: String
    }

    func register(on router: Router<HeraldRequestContext>) {
        router.get("/cluster") { _, _ in try await self.status() }
    }

    func status() async throws -> Status {
        let applied = try self.view.appliedPosition()
        let head = (try? await self.log.head()) ?? applied
        guard let membership = self.membership else {
            return Status(node: "single", mode: "single", members: [], partitions: 0, owned: [], appliedRevision: applied, logHead: head, lag: head > applied ? head - applied : 0, etcd: "none")
        }
        let snapshot = membership.snapshot
        return Status(
            node: membership.configuration.nodeID,
            mode: "cluster",
            members: snapshot.members,
            partitions: snapshot.map.partitions,
            owned: snapshot.map.owned(by: membership.configuration.nodeID),
            appliedRevision: applied,
            logHead: head,
            lag: head > applied ? head - applied : 0,
            etcd: snapshot.etcdReachable ? "reachable" : "unreachable"
        )
    }
}
