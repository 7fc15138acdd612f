import Foundation
import HeraldCore
import HeraldStore
import HeraldTesting
import Hummingbird
import Prometheus
import HummingbirdTesting
import Logging
import NIOCore
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing

import HeraldConfig
import HeraldFrontDoor
@testable import HeraldServer

@Suite struct OperationsRoutesTests {
    func withNode<T>(metricsToken: String? = nil, apiToken: String? = nil, _ body: (HeraldNode) async throws -> T) async throws -> T {
        try await withTemporaryDirectory { path in
            var configuration = HeraldConfiguration()
            configuration.store.path = path
            configuration.metrics.bearerToken = metricsToken
            configuration.api.bearerToken = apiToken
            let node = try HeraldNode.build(configuration: configuration, logger: Logger(label: "test"))
            return try await body(node)
        }
    }

    @Test func healthzAnswersOK() async throws {
        try await withNode { node in
            try await node.application.test(.router) { client in
                try await client.execute(uri: "/healthz", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body) == #"{"status":"ok"}"#)
                }
            }
        }
    }

    @Test func readyzIsUnavailableWhileTheViewLagsTheLog() async throws {
        try await withTemporaryDirectory { path in
            let store = try LocalStore(path: path)
            try await store.log.append(SyntheticCommands(seed: 1).commands(0..<10))
            let registry = PrometheusCollectorRegistry()
            let routes = OperationsRoutes(
                store: store,
                log: store.log,
                readyLag: 0,
                registry: registry,
                storeMetrics: StoreMetrics(store: store, log: store.log, factory: PrometheusMetricsFactory(registry: registry)),
                metricsToken: nil,
                delivery: nil
            )
            let lagging = try await routes.readiness()
            #expect(lagging.status == .serviceUnavailable)
            #expect(lagging.responseGenerator.logHead == 10)
            #expect(lagging.responseGenerator.appliedPosition == 0)
            #expect(lagging.responseGenerator.problems.count == 1)
            try await store.follower(logger: Logger(label: "test")).catchUp()
            #expect(try await routes.readiness().status == .ok)
            try await store.close()
        }
    }

    @Test func nodeCatchesUpOnTheLogAtStartAndBecomesReady() async throws {
        try await withTemporaryDirectory { path in
            do {
                let store = try LocalStore(path: path)
                try await store.log.append(SyntheticCommands(seed: 1).commands(0..<10))
                try await store.close()
            }
            var configuration = HeraldConfiguration()
            configuration.store.path = path
            let node = try HeraldNode.build(configuration: configuration, logger: Logger(label: "test"))
            try await node.application.test(.router) { client in
                try await waitUntil("/readyz answers 200 once the node has caught up on the log (status)", observing: { try await client.execute(uri: "/readyz", method: .get).status }) {
                    $0 == .ok
                }
                #expect(try node.store.view.appliedPosition() == 10)
            }
        }
    }

    @Test func metricsExposeHTTPStoreAndProcessFamilies() async throws {
        try await withNode { node in
            try await node.application.test(.router) { client in
                _ = try await client.execute(uri: "/healthz", method: .get)
                _ = try await client.execute(uri: "/no/such/path", method: .get)
                try await client.execute(uri: "/metrics", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
                    let text = String(buffer: response.body)
                    #expect(text.contains(#"herald_http_requests_total{route="/healthz",method="GET",status="200"} 1"#))
                    #expect(text.contains(#"route="NotFound",method="GET",status="404""#))
                    #expect(text.contains("herald_http_request_duration_seconds_bucket"))
                    #expect(text.contains("herald_registry_records 0"))
                    #expect(text.contains("herald_log_head_position 0"))
                    #expect(text.contains("herald_store_used_bytes"))
                    #expect(text.contains("herald_store_map_size_bytes"))
                    #expect(text.contains("process_resident_memory_bytes"))
                    #expect(text.contains("process_cpu_seconds_total"))
                }
            }
        }
    }

    @Test func metricsTokenIsEnforced() async throws {
        try await withNode(metricsToken: "s3cret") { node in
            try await node.application.test(.router) { client in
                let anonymous = try await client.execute(uri: "/metrics", method: .get)
                #expect(anonymous.status == .unauthorized)
                #expect(anonymous.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
                let wrong = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer s3cre"])
                #expect(wrong.status == .unauthorized)
                let right = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer s3cret"])
                #expect(right.status == .ok)
                // RFC 9110 §11.1: the scheme is case-insensitive and one or more spaces end it.
                for spelling in ["bearer s3cret", "BEARER s3cret", "Bearer   s3cret"] {
                    let response = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: spelling])
                    #expect(response.status == .ok, "\(spelling)")
                }
                for spelling in ["Basic s3cret", "Bearers3cret", "Bearer s3cre t", "s3cret", "Bearer"] {
                    let response = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: spelling])
                    #expect(response.status == .unauthorized, "\(spelling)")
                }
            }
        }
    }

    @Test func gracefulShutdownClosesTheStore() async throws {
        try await withTemporaryDirectory { path in
            var configuration = HeraldConfiguration()
            configuration.store.path = path
            configuration.server.port = 0
            let (started, startedContinuation) = AsyncStream.makeStream(of: Int.self)
            let node = try HeraldNode.build(configuration: configuration, logger: Logger(label: "test")) { address in
                startedContinuation.yield(address?.port ?? -1)
            }
            try await testGracefulShutdown { trigger in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await node.application.run() }
                    var ports = started.makeAsyncIterator()
                    let port = await ports.next()
                    #expect((port ?? 0) > 0)
                    trigger.triggerGracefulShutdown()
                    try await group.waitForAll()
                }
            }
            await #expect(throws: StoreError(.closed, "")) {
                try await node.store.writer.write { _ in 0 }
            }
        }
    }

    /// The digest reads every record: without a metrics token it takes the API token, and with
    /// neither only a loopback client gets it.
    @Test func theDigestTakesATokenOrALoopbackClient() async throws {
        try await withNode(apiToken: "api-s3cret") { node in
            try await node.application.test(.router) { client in
                #expect(try await client.execute(uri: "/cluster?digest=true", method: .get).status == .unauthorized)
                let answered = try await client.execute(uri: "/cluster?digest=true", method: .get, headers: [.authorization: "Bearer api-s3cret"])
                #expect(answered.status == .ok)
                #expect(String(buffer: answered.body).contains(#""view""#))
                // Without the digest the status stays open, as probes need it.
                #expect(try await client.execute(uri: "/cluster", method: .get).status == .ok)
            }
            try await node.close()
        }
        try await withNode { node in
            try await node.application.test(.router) { client in
                // The router test client has no address: not loopback.
                let refused = try await client.execute(uri: "/cluster?digest=true", method: .get)
                #expect(refused.status == .forbidden)
            }
            try await node.close()
        }
        #expect(ClusterRoutes.isLoopback(try SocketAddress(ipAddress: "127.0.0.1", port: 1)))
        #expect(ClusterRoutes.isLoopback(try SocketAddress(ipAddress: "::1", port: 1)))
        #expect(!ClusterRoutes.isLoopback(try SocketAddress(ipAddress: "10.0.0.7", port: 1)))
        #expect(!ClusterRoutes.isLoopback(nil))
    }

    /// HEAD is answered wherever GET is, without a body.
    @Test func headIsAnsweredWhereverGetIs() async throws {
        try await withNode { node in
            try await node.application.test(.router) { client in
                for path in ["/readyz", "/cluster", "/metrics"] {
                    let response = try await client.execute(uri: path, method: .head)
                    #expect(response.status == .ok, "\(path)")
                    #expect(response.body.readableBytes == 0, "\(path)")
                }
            }
            try await node.close()
        }
    }

    /// A body in a transfer coding the node does not undo is refused, not read still encoded.
    @Test func aTransferCodingOtherThanChunkedGets501() async throws {
        try await withNode { node in
            try await node.application.test(.router) { client in
                let refused = try await client.execute(uri: "/api/push", method: .post, headers: [.transferEncoding: "gzip, chunked"], body: ByteBuffer(string: "{}"))
                #expect(refused.status == .notImplemented)
                #expect(String(buffer: refused.body).contains("gzip"))
                let plain = try await client.execute(uri: "/healthz", method: .get, headers: [.transferEncoding: "chunked"])
                #expect(plain.status == .ok)
            }
            try await node.close()
        }
        #expect(TransferCodingMiddleware<HeraldRequestContext>.unsupportedCoding(["chunked"]) == nil)
        #expect(TransferCodingMiddleware<HeraldRequestContext>.unsupportedCoding(["Chunked"]) == nil)
        #expect(TransferCodingMiddleware<HeraldRequestContext>.unsupportedCoding(["gzip, chunked"]) == "gzip")
        #expect(TransferCodingMiddleware<HeraldRequestContext>.unsupportedCoding(["chunked", "x-custom;q=1"]) == "x-custom")
    }

    @Test func oneCallerAtATime() {
        let gate = OneAtATime()
        #expect(gate.enter())
        #expect(!gate.enter())
        gate.leave()
        #expect(gate.enter())
    }
}
