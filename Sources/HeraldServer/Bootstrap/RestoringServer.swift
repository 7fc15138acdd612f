import HeraldConfig
import HeraldCore
import Hummingbird
public import Logging
public import NIOCore
import ServiceLifecycle

/// What a node answers while it restores its store from a member's snapshot, before it can
/// serve: alive on `/healthz`, not ready on `/readyz` and `/cluster` with how far the restore
/// has come, the restore's gauges on `/metrics`, and 503 with `Retry-After` to anything else, on
/// the API port and the operations port. It binds only once a restore begins and lets go of the
/// ports when it ends, before the node binds them.
public enum RestoringServer {
    /// Seconds a client is told to wait.
    static let retryAfter = "5"

    /// Serves while `progress` is restoring; returns at once when the bootstrap ends without a
    /// restore. `onServerRunning` receives the API port's address.
    public static func serve(
        configuration: HeraldConfiguration,
        progress: RestoreProgress,
        logger: Logger,
        onServerRunning: @escaping @Sendable (SocketAddress?) async -> Void = { _ in }
    ) async throws {
        guard await progress.waitForBegin() else { return }
        let server = configuration.server
        var services: [any Service] = [
            Application(
                router: Self.router(configuration, progress: progress),
                configuration: .init(address: .hostname(server.host, port: server.port), serverName: "herald"),
                onServerRunning: { await onServerRunning($0.localAddress) },
                logger: logger
            )
        ]
        if let port = server.operationsPort {
            services.append(
                Application(
                    router: Self.router(configuration, progress: progress),
                    configuration: .init(address: .hostname(server.host, port: port), serverName: "herald-operations"),
                    logger: logger
                )
            )
        }
        let group = ServiceGroup(configuration: .init(services: services, logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await progress.waitForFinish()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    static func router(_ configuration: HeraldConfiguration, progress: RestoreProgress) -> Router<BasicRequestContext> {
        let router = Router()
        let nodeID = configuration.nodeID
        router.get("/healthz") { _, _ in Self.json(.ok, .object([("status", .string("ok"))])) }
        router.head("/healthz") { _, _ in HTTPResponse.Status.ok }
        router.get("/readyz") { _, _ in
            Self.json(.serviceUnavailable, .object([("status", .string("restoring")), ("problems", .array([.string(Self.problem(progress))])), ("restore", Self.restore(progress))]))
        }
        router.get("/cluster") { _, _ in
            Self.json(.serviceUnavailable, .object([("node", .string(nodeID)), ("state", .string("restoring")), ("restore", Self.restore(progress))]))
        }
        let metricsToken = configuration.metrics.bearerToken
        router.get("/metrics") { request, _ in
            if let token = metricsToken {
                try BearerTokenMiddleware<BasicRequestContext>(token: token, realm: "herald-metrics").authorize(request)
            }
            return Self.metrics(progress)
        }
        for method in [HTTPRequest.Method.get, .post, .put, .delete, .patch] {
            router.on("**", method: method) { _, _ in
                var response = Self.json(.serviceUnavailable, .object([("error", .string(Self.problem(progress) + "; try again shortly"))]))
                response.headers[.retryAfter] = Self.retryAfter
                return response
            }
        }
        return router
    }

    static func problem(_ progress: RestoreProgress) -> String {
        guard let snapshot = progress.current else { return "restoring the store from a member's snapshot" }
        let total = snapshot.totalBytes.map { " of \($0)" } ?? ""
        return "restoring the store from \(snapshot.member)'s snapshot: \(snapshot.receivedBytes)\(total) bytes received"
    }

    static func restore(_ progress: RestoreProgress) -> JSONValue {
        guard let snapshot = progress.current else { return .null }
        var fields: [(String, JSONValue)] = [("member", .string(snapshot.member)), ("received_bytes", .number(Double(snapshot.receivedBytes)))]
        if let total = snapshot.totalBytes { fields.append(("total_bytes", .number(Double(total)))) }
        return .object(fields)
    }

    static func metrics(_ progress: RestoreProgress) -> Response {
        let snapshot = progress.current
        var text = """
            # HELP herald_store_restoring 1 while the node restores its store from a member's snapshot.
            # TYPE herald_store_restoring gauge
            herald_store_restoring \(snapshot == nil ? 0 : 1)
            # HELP herald_store_restore_received_bytes Bytes of the snapshot received so far.
            # TYPE herald_store_restore_received_bytes gauge
            herald_store_restore_received_bytes \(snapshot?.receivedBytes ?? 0)

            """
        if let total = snapshot?.totalBytes {
            text += """
                # HELP herald_store_restore_total_bytes Bytes of the snapshot the member announced.
                # TYPE herald_store_restore_total_bytes gauge
                herald_store_restore_total_bytes \(total)

                """
        }
        var bytes = Array(text.utf8)
        ProcessMetrics.render(into: &bytes)
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    static func json(_ status: HTTPResponse.Status, _ value: JSONValue) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: value.bytes)))
    }
}
