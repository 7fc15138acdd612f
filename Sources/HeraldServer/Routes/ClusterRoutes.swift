import HeraldCluster
import HeraldFrontDoor
import HeraldStore
import Hummingbird

/// `GET /cluster`: this node's view of the cluster, for operators and `herald cluster status`.
struct ClusterRoutes: Sendable {
    let membership: Membership?
    let log: any CommandLog
    let view: any RegistryView
    /// The digest reads every record: in a cluster it takes the cluster secret, alone the
    /// metrics token when one is set.
    let digestToken: String?

    func register(on router: Router<HeraldRequestContext>) {
        router.get("/cluster") { request, _ in
            var status = try await self.status()
            // Reads every record, so only on request.
            if request.uri.queryParameters.get("digest") == "true" {
                if let token = self.digestToken { try BearerTokenMiddleware<HeraldRequestContext>(token: token, realm: "herald-digest").authorize(request) }
                status.view = try self.view.digest()
            }
            return ClusterStatusBody(status: status)
        }
    }

    func status() async throws -> ClusterStatus {
        let applied = try self.view.appliedPosition()
        let head = (try? await self.log.head()) ?? applied
        guard let membership = self.membership else {
            return ClusterStatus(node: "single", mode: "single", members: [], partitions: 0, owned: [], appliedRevision: applied, logHead: head, etcd: "none")
        }
        let snapshot = membership.snapshot
        return ClusterStatus(
            node: membership.configuration.nodeID,
            mode: "cluster",
            members: snapshot.members,
            partitions: snapshot.map.partitions,
            owned: snapshot.map.owned(by: membership.configuration.nodeID),
            appliedRevision: applied,
            logHead: head,
            etcd: snapshot.backendReachable ? "reachable" : "unreachable"
        )
    }
}

/// The status as the answer's JSON body, as it is.
struct ClusterStatusBody: ResponseEncodable {
    let status: ClusterStatus

    func encode(to encoder: any Encoder) throws {
        try self.status.encode(to: encoder)
    }
}
