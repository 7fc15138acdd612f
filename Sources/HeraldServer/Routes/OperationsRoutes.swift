import HeraldFrontDoor
import Foundation
import HeraldCluster
import HeraldDelivery
import HeraldStore
import Hummingbird
import NIOCore
import Prometheus

/// `/healthz`, `/readyz` and `/metrics`: what orchestrators and Prometheus poll.
struct OperationsRoutes: Sendable {
    let store: LocalStore
    /// The command log the view follows: the node's own, or etcd's in a cluster.
    let log: any CommandLog
    /// How far the view may trail the log and still be ready (0 alone, `cluster.ready-lag` in a
    /// cluster, where other nodes keep appending).
    let readyLag: UInt64
    let registry: PrometheusCollectorRegistry
    let storeMetrics: StoreMetrics
    var clusterMetrics: ClusterMetrics? = nil
    /// In a cluster: not ready until this node is a registered member.
    var membership: Membership? = nil
    let metricsToken: String?
    let delivery: AppProviders?
    var acceptedPushes: AcceptedPushQueues? = nil

    struct Health: ResponseEncodable {
        var status: String
    }

    struct Readiness: ResponseEncodable {
        var status: String
        var logHead: UInt64
        var appliedPosition: UInt64
        var problems: [String]
    }

    func register(on router: Router<HeraldRequestContext>) {
        router.get("/healthz") { _, _ in Health(status: "ok") }
        router.head("/healthz") { _, _ in HTTPResponse.Status.ok }
        router.get("/readyz") { _, _ in try await self.readiness() }
        router.get("/metrics") { request, _ in try await self.metrics(request) }
        for path: RouterPath in ["/healthz", "/readyz", "/metrics"] { router.allowOnly([.get], at: path) }
    }

    /// Ready once the view has applied the whole log: until then lookups would answer from the
    /// past. Provider reachability joins these checks when delivery exists.
    func readiness() async throws -> EditedResponse<Readiness> {
        try await self.readiness(head: BoundedHeadRead.head(of: self.log))
    }

    /// Readiness with the head already read (the status page reads it once for everything).
    func readiness(head ending: BoundedHeadRead.Ending) throws -> EditedResponse<Readiness> {
        let head: UInt64
        switch ending {
        case .head(let read):
            head = read
        case .failed(let error):
            return Self.notReady("the command log cannot be read: \(error)")
        case .timedOut:
            return Self.notReady("the command log did not answer within \(BoundedHeadRead.limit)")
        }
        var problems: [String] = []
        let applied = try self.store.view.appliedPosition()
        if let membership = self.membership, !membership.snapshot.registered {
            problems.append("not yet registered as a cluster member")
        }
        if applied < head, head - applied > self.readyLag {
            problems.append("view is behind the command log (\(head - applied) positions to apply)")
        }
        let body = Readiness(status: problems.isEmpty ? "ready" : "not ready", logHead: head, appliedPosition: applied, problems: problems)
        return EditedResponse(status: problems.isEmpty ? .ok : .serviceUnavailable, response: body)
    }

    private static func notReady(_ problem: String) -> EditedResponse<Readiness> {
        EditedResponse(status: .serviceUnavailable, response: Readiness(status: "not ready", logHead: 0, appliedPosition: 0, problems: [problem]))
    }

    func metrics(_ request: Request) async throws -> Response {
        if let token = self.metricsToken {
            try BearerTokenMiddleware<HeraldRequestContext>(token: token, realm: "herald-metrics").authorize(request)
        }
        let head = await BoundedHeadRead.head(of: self.log)
        let ready = try self.readiness(head: head).status == .ok
        self.storeMetrics.refresh(head: head.head, ready: ready)
        self.clusterMetrics?.refresh()
        await self.delivery?.sampleGauges()
        self.acceptedPushes?.sampleGauges()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16 * 1024)
        self.registry.emit(into: &bytes)
        ProcessMetrics.render(into: &bytes)
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }
}
