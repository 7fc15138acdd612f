import Foundation
import HeraldBuildInfo
import HeraldCluster
import HeraldCore
import HeraldFrontDoor
import HeraldDelivery
import Hummingbird
import NIOCore

/// `GET /`, the status page, and `GET /status`, the JSON it refreshes from: health and readiness
/// with reasons, each app's providers, the last minutes of pushes, the queue, and in a cluster
/// its members, partitions, lag and etcd. On the operations port, or on the API port when there
/// is none; behind the metrics token when one is set.
struct StatusRoutes: Sendable {
    let operations: OperationsRoutes
    let cluster: ClusterRoutes
    /// The endpoint phrase of each app's provider sections, from the configuration: app → section → phrase.
    let endpoints: [String: [String: String]]
    let startedAt: Date
    let metricsToken: String?
    let now: @Sendable () -> Date

    init(operations: OperationsRoutes, cluster: ClusterRoutes, endpoints: [String: [String: String]], metricsToken: String?, now: @escaping @Sendable () -> Date = Date.init) {
        self.operations = operations
        self.cluster = cluster
        self.endpoints = endpoints
        self.metricsToken = metricsToken
        self.now = now
        self.startedAt = now()
    }

    func register(on router: Router<HeraldRequestContext>) {
        router.get("/") { request, _ in
            try self.authorize(request)
            return Response(
                status: .ok,
                headers: [
                    .contentType: "text/html; charset=utf-8",
                    .cacheControl: "no-store",
                    // Everything the page needs is in it: nothing from elsewhere may load.
                    .contentSecurityPolicy: "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
                    .init("X-Content-Type-Options")!: "nosniff",
                ],
                body: ResponseBody(byteBuffer: ByteBuffer(string: StatusPage.html))
            )
        }
        router.get("/status") { request, _ in
            try self.authorize(request)
            return try await self.status()
        }
        for path: RouterPath in ["/", "/status"] { router.allowOnly([.get], at: path) }
    }

    /// The metrics token, as a bearer token or as the password of Basic authentication: a
    /// browser asks for the second itself and sends it again with the page's own requests.
    private func authorize(_ request: Request) throws {
        guard let token = self.metricsToken else { return }
        let header = request.headers[.authorization] ?? ""
        let expected = Array(token.utf8)
        if BearerTokenMiddleware<HeraldRequestContext>.constantTimeEquals(BearerTokenMiddleware<HeraldRequestContext>.credentials(header), expected) { return }
        if let password = Self.basicPassword(header), BearerTokenMiddleware<HeraldRequestContext>.constantTimeEquals(password, expected) { return }
        throw HTTPError(
            .unauthorized,
            headers: [.wwwAuthenticate: "Basic realm=\"herald-status\", charset=\"UTF-8\""],
            message: "the status page takes the metrics token: as a bearer token, or as the password of Basic authentication (any user name)"
        )
    }

    /// The password of `Basic base64(user:password)`; `nil` for another scheme or bad base64.
    static func basicPassword(_ authorization: String) -> [UInt8]? {
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let decoded = Data(base64Encoded: String(parts[1].trimmingCharacters(in: .whitespaces)))
        else { return nil }
        guard let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        return Array(decoded[decoded.index(after: colon)...])
    }

    func status() async throws -> NodeStatus {
        let now = self.now()
        let head = await BoundedHeadRead.head(of: self.operations.log)
        let readiness = try self.operations.readiness(head: head).responseGenerator
        let clusterStatus = try self.cluster.status(head: head.head)
        var apps: [NodeStatus.App] = []
        var inFlight = 0
        let recent = self.operations.delivery?.metrics.recent.snapshot() ?? []
        for (id, app) in (self.operations.delivery?.apps ?? [:]).sorted(by: { $0.key < $1.key }) {
            var providers: [NodeStatus.Provider] = []
            for provider in app.providers {
                let depth = await provider.queueDepth
                let failures = await provider.connectFailures
                inFlight += depth
                let history = recent.first { $0.app == id && $0.provider == provider.name }
                providers.append(
                    NodeStatus.Provider(
                        name: provider.name,
                        endpoint: self.endpoints[id]?[provider.name] ?? provider.name,
                        connections: await provider.openConnections,
                        inFlight: depth,
                        connectFailures: failures.outOfFiles + failures.other,
                        lastFailure: history?.lastFailure.map { NodeStatus.Failure(at: Self.iso($0.at), result: $0.result, reason: $0.reason) },
                        minutes: Self.minutes(history?.minutes ?? Self.emptyMinutes(now: now))
                    )
                )
            }
            apps.append(NodeStatus.App(id: id, providers: providers))
        }
        var totals = Self.emptyMinutes(now: now)
        for provider in recent {
            for (index, minute) in provider.minutes.enumerated() where index < totals.count {
                totals[index].counts.delivered += minute.counts.delivered
                totals[index].counts.deadToken += minute.counts.deadToken
                totals[index].counts.rejected += minute.counts.rejected
                totals[index].counts.failed += minute.counts.failed
                totals[index].counts.notAdmitted += minute.counts.notAdmitted
            }
        }
        let lastComplete = totals.count >= 2 ? totals[totals.count - 2].counts.total : 0
        var queue = NodeStatus.Queue(accepted: 0, oldestAcceptedSeconds: 0, inFlight: inFlight)
        if let journal = self.operations.acceptedPushes?.journal, let (entries, oldest) = try? journal.depth() {
            queue.accepted = entries
            queue.oldestAcceptedSeconds = oldest.map { max(0, now.timeIntervalSince1970 - Double($0) / 1000) } ?? 0
        }
        return NodeStatus(
            node: clusterStatus.node,
            mode: clusterStatus.mode,
            version: HeraldBuildInfo.version,
            commit: HeraldBuildInfo.commit,
            startedAt: Self.iso(self.startedAt),
            generatedAt: Self.iso(now),
            uptimeSeconds: max(0, Int(now.timeIntervalSince(self.startedAt))),
            health: "ok",
            readiness: NodeStatus.Readiness(status: readiness.status, problems: readiness.problems, logHead: readiness.logHead, appliedPosition: readiness.appliedPosition),
            apps: apps,
            pushes: NodeStatus.Pushes(perSecond: Double(lastComplete) / 60, minutes: Self.minutes(totals)),
            queue: queue,
            cluster: self.clusterSection(clusterStatus)
        )
    }

    private func clusterSection(_ status: ClusterStatus) -> NodeStatus.Cluster? {
        guard let membership = self.cluster.membership else { return nil }
        let map = membership.snapshot.map
        return NodeStatus.Cluster(
            members: status.members.map { NodeStatus.Member(id: $0.id, url: $0.url, partitions: map.owned(by: $0.id).count) },
            partitions: status.partitions,
            ownedHere: status.owned.count,
            logHead: status.logHead,
            appliedRevision: status.appliedRevision,
            lag: status.lag,
            etcd: status.etcd
        )
    }

    private static func emptyMinutes(now: Date) -> [(start: Date, counts: RecentDeliveries.Counts)] {
        let minute = Int(now.timeIntervalSince1970 / 60)
        return ((minute - RecentDeliveries.minutes + 1)...minute).map { (Date(timeIntervalSince1970: TimeInterval($0 * 60)), RecentDeliveries.Counts()) }
    }

    private static func minutes(_ minutes: [(start: Date, counts: RecentDeliveries.Counts)]) -> [NodeStatus.Minute] {
        minutes.map { NodeStatus.Minute(start: Self.iso($0.start), counts: $0.counts) }
    }

    static func iso(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
