import AsyncHTTPClient
import Foundation
import HeraldServer
import HeraldTesting
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

/// While a node restores its store from a member's snapshot it is not serving yet; what it
/// answers then.
struct RestoringServerTests {
    func get(_ url: String, method: HTTPMethod = .GET) async throws -> (status: Int, headers: HTTPHeaders, body: String) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        return (Int(response.status.code), response.headers, String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    @Test func whileRestoringTheNodeIsAliveNotReadyAndSaysHowFarAlong() async throws {
        var configuration = HeraldConfiguration()
        configuration.server.host = "127.0.0.1"
        configuration.server.port = 0
        let settings = configuration
        let progress = RestoreProgress()
        let port = BoundPort()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await RestoringServer.serve(configuration: settings, progress: progress, logger: Logger(label: "test")) { address in
                    port.set(address?.port)
                }
            }
            progress.begin(member: "node3", totalBytes: 1000)
            progress.received(400)
            let bound = try await waitUntil("the restoring server to listen", within: .seconds(60), observing: { port.value }) { $0 != nil }
            let base = "http://127.0.0.1:\(bound!)"

            #expect(try await self.get(base + "/healthz").status == 200)
            let ready = try await self.get(base + "/readyz")
            #expect(ready.status == 503)
            #expect(ready.body.contains("node3's snapshot: 400 of 1000 bytes received"), "\(ready.body)")
            let cluster = try await self.get(base + "/cluster")
            #expect(cluster.status == 503)
            #expect(cluster.body.contains(#""state":"restoring""#))
            let metrics = try await self.get(base + "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.body.contains("herald_store_restoring 1"))
            #expect(metrics.body.contains("herald_store_restore_received_bytes 400"))
            #expect(metrics.body.contains("herald_store_restore_total_bytes 1000"))
            // The API answers too, with when to come back.
            let push = try await self.get(base + "/api/push", method: .POST)
            #expect(push.status == 503)
            #expect(push.headers.first(name: "retry-after") == "5")

            progress.received(1000)
            #expect(try await self.get(base + "/metrics").body.contains("herald_store_restore_received_bytes 1000"))
            // Installed: the server lets the port go for the node.
            progress.finish()
            try await group.waitForAll()
        }
    }

    @Test func withoutARestoreNothingListens() async throws {
        var configuration = HeraldConfiguration()
        configuration.server.host = "127.0.0.1"
        configuration.server.port = 0
        let progress = RestoreProgress()
        progress.finish()
        let listened = BoundPort()
        try await RestoringServer.serve(configuration: configuration, progress: progress, logger: Logger(label: "test")) { address in
            listened.set(address?.port ?? -1)
        }
        #expect(listened.value == nil)
    }
}

/// The port a server reported it bound, shared with the test's task.
final class BoundPort: Sendable {
    private let port = Mutex<Int?>(nil)
    var value: Int? { self.port.withLock { $0 } }

    func set(_ port: Int?) {
        self.port.withLock { $0 = port }
    }
}
