import Crypto
import Foundation
import HeraldConfig
import HeraldCore
import HeraldDelivery
import HeraldServer
import HeraldTesting
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// `GET /` and `GET /status`: the page an operator opens, and the JSON it renders.
@Suite struct StatusPageTests {
    static func node(metricsToken: String? = nil, apiToken: String? = nil, operationsPort: Bool = false, _ body: (HeraldNode) async throws -> Void) async throws {
        try await withTemporaryDirectory { path in
            var configuration = HeraldConfiguration()
            configuration.store.path = path
            configuration.metrics.bearerToken = metricsToken
            configuration.api.bearerToken = apiToken
            if operationsPort { configuration.server.operationsPort = 0 }
            let node = try HeraldNode.build(configuration: configuration, logger: Logger(label: "test"))
            try await body(node)
        }
    }

    static func json(_ buffer: ByteBuffer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any])
    }

    @Test func thePageIsSelfContainedHTML() async throws {
        try await Self.node { node in
            try await node.application.test(.router) { client in
                try await client.execute(uri: "/", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                    let csp = try #require(response.headers[.contentSecurityPolicy])
                    #expect(csp.contains("default-src 'none'"))
                    let html = String(buffer: response.body)
                    #expect(html.contains("fetch(\"status\""))
                    // Nothing from elsewhere: no external script, style, font or image.
                    #expect(!html.contains("src=\"http"))
                    #expect(!html.contains("href=\"http"))
                    #expect(!html.contains("@import"))
                }
            }
        }
    }

    @Test func aNodeAloneReportsItsStateWithoutCluster() async throws {
        try await Self.node { node in
            try await node.application.test(.router) { client in
                try await client.execute(uri: "/status", method: .get) { response in
                    #expect(response.status == .ok)
                    let status = try Self.json(response.body)
                    #expect(status["node"] as? String == "single")
                    #expect(status["mode"] as? String == "single")
                    #expect(status["health"] as? String == "ok")
                    #expect((status["readiness"] as? [String: Any])?["status"] as? String == "ready")
                    #expect((status["apps"] as? [Any])?.isEmpty == true)
                    #expect(status["cluster"] == nil || status["cluster"] is NSNull)
                    #expect(((status["pushes"] as? [String: Any])?["minutes"] as? [Any])?.count == 15)
                    #expect((status["version"] as? String)?.isEmpty == false)
                    #expect((status["commit"] as? String)?.isEmpty == false)
                }
            }
        }
    }

    @Test func theMetricsTokenGuardsItAsBearerOrBasic() async throws {
        try await Self.node(metricsToken: "m3trics") { node in
            try await node.application.test(.router) { client in
                for path in ["/", "/status"] {
                    try await client.execute(uri: path, method: .get) { response in
                        #expect(response.status == .unauthorized)
                        // A browser asks for Basic credentials itself.
                        #expect(response.headers[.wwwAuthenticate]?.hasPrefix("Basic realm=\"herald-status\"") == true)
                    }
                    try await client.execute(uri: path, method: .get, headers: [.authorization: "Bearer m3trics"]) { response in
                        #expect(response.status == .ok)
                    }
                    let basic = "Basic " + Data("operator:m3trics".utf8).base64EncodedString()
                    try await client.execute(uri: path, method: .get, headers: [.authorization: basic]) { response in
                        #expect(response.status == .ok)
                    }
                    let wrong = "Basic " + Data("operator:m3tric".utf8).base64EncodedString()
                    try await client.execute(uri: path, method: .get, headers: [.authorization: wrong]) { response in
                        #expect(response.status == .unauthorized)
                    }
                }
            }
        }
    }

    @Test func onTheAPIPortWithoutAMetricsTokenTheAPITokenGuardsIt() async throws {
        try await Self.node(apiToken: "4pi") { node in
            try await node.application.test(.router) { client in
                try await client.execute(uri: "/status", method: .get) { response in
                    #expect(response.status == .unauthorized, "app names and endpoints are not for anyone who reaches the API port")
                }
                try await client.execute(uri: "/status", method: .get, headers: [.authorization: "Bearer 4pi"]) { response in
                    #expect(response.status == .ok)
                }
            }
        }
    }

    @Test func withAnOperationsPortThePageIsNotOnTheAPIPort() async throws {
        try await Self.node(operationsPort: true) { node in
            try await node.application.test(.router) { client in
                try await client.execute(uri: "/status", method: .get) { response in
                    #expect(response.status == .notFound)
                }
            }
        }
    }

    @Test func pushesShowInTheirMinuteAndProvider() async throws {
        try await OneAPNSAppNode.with { node, mock in
            let pool = try #require(node.delivery)
            let dead = String(repeating: "cd", count: 32)
            mock.script(token: dead, .unregistered(since: Date(timeIntervalSince1970: 1_700_000_000)))
            for token in [String(repeating: "ab", count: 32), String(repeating: "ef", count: 32), dead] {
                _ = try await pool.send(PushNotification(id: UUID().uuidString.lowercased(), device: Device(platform: .apns, token: token), payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8)))
            }
            try await node.application.test(.router) { client in
                try await client.execute(uri: "/status", method: .get) { response in
                    let status = try Self.json(response.body)
                    let apps = try #require(status["apps"] as? [[String: Any]])
                    #expect(apps.first?["id"] as? String == "wallet")
                    let provider = try #require((apps.first?["providers"] as? [[String: Any]])?.first)
                    #expect(provider["name"] as? String == "apns")
                    #expect((provider["endpoint"] as? String)?.contains("127.0.0.1:\(mock.port)") == true)
                    #expect((provider["connections"] as? Int ?? 0) >= 1)
                    let minutes = try #require(provider["minutes"] as? [[String: Any]])
                    let counted = minutes.suffix(2).map { ($0["delivered"] as? Int ?? 0, $0["deadToken"] as? Int ?? 0) }
                    #expect(counted.map(\.0).reduce(0, +) == 2)
                    #expect(counted.map(\.1).reduce(0, +) == 1)
                    let last = try #require(provider["lastFailure"] as? [String: Any])
                    #expect(last["result"] as? String == "dead_token")
                    #expect((last["reason"] as? String)?.contains("Unregistered") == true)
                }
            }
        }
    }
}
