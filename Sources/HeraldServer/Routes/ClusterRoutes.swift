import HeraldCluster
import HeraldFrontDoor
import HeraldStore
import Hummingbird
import NIOCore

/// `GET /cluster`: this node's view of the cluster, for operators and `herald cluster status`.
struct ClusterRoutes: Sendable {
    let membership: Membership?
    let log: any CommandLog
    let view: any RegistryView
    /// The digest reads every record: in a cluster it takes the cluster secret, alone the
    /// metrics token, else the API token; with neither set it answers loopback clients only.
    let digestToken: String?
    /// One digest at a time: each reads the whole view (0.9 s for 300,000 records), and a few
    /// clients looping on it would take the node's cores from everything else.
    let digesting: OneAtATime

    func register(on router: Router<HeraldRequestContext>) {
        router.get("/cluster") { request, context in
            var status = try await self.status()
            // Reads every record, so only on request.
            if request.uri.queryParameters.get("digest") == "true" {
                try self.authorizeDigest(request, from: context.remoteAddress)
                guard self.digesting.enter() else {
                    throw HTTPError(.tooManyRequests, headers: [.retryAfter: "1"], message: "a digest of the view is being computed; ask again in a second")
                }
                defer { self.digesting.leave() }
                status.view = try self.view.digest()
            }
            return ClusterStatusBody(status: status)
        }
        router.allowOnly([.get], at: "/cluster")
    }

    private func authorizeDigest(_ request: Request, from address: SocketAddress?) throws {
        if let token = self.digestToken {
            try BearerTokenMiddleware<HeraldRequestContext>(token: token, realm: "herald-digest").authorize(request)
            return
        }
        guard Self.isLoopback(address) else {
            throw HTTPError(.forbidden, message: "the digest reads every record: set metrics.bearer-token (or api.bearer-token) to ask for it from another host")
        }
    }

    static func isLoopback(_ address: SocketAddress?) -> Bool {
        guard let ip = address?.ipAddress else { return false }
        return ip.hasPrefix("127.") || ip == "::1" || ip.hasPrefix("::ffff:127.")
    }

    func status() async throws -> ClusterStatus {
        try self.status(head: await BoundedHeadRead.head(of: self.log).head)
    }

    /// The status with the head already read; `nil` when it could not be.
    func status(head read: UInt64?) throws -> ClusterStatus {
        let applied = try self.view.appliedPosition()
        let head = read ?? applied
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
