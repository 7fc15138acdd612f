import Crypto
import Foundation
import HeraldCore
import HeraldDelivery
import HeraldConfig
import HeraldServer
import HeraldStatus
import HeraldStore
import HeraldTesting
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// A node configured with one app whose APNs is the strict mock: what an operator sets up with
/// `apps.<app>.apns.*` keys, checked end to end below the front doors.
@Suite struct NodeDeliveryTests {
    func withNode(_ body: (HeraldNode, MockAPNS) async throws -> Void) async throws {
        try await OneAPNSAppNode.with(body)
    }

    @Test func configuredAppDeliversThroughThePool() async throws {
        try await withNode { node, mock in
            let pool = try #require(node.delivery)
            try await node.application.test(.router) { client in
                let notification = PushNotification(
                    id: UUID().uuidString.lowercased(),
                    device: Device(platform: .apns, token: String(repeating: "ab", count: 32)),
                    payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8)
                )
                let outcome = try await pool.send(notification)
                #expect(outcome == .delivered)
                #expect(mock.accepted.first?.topic == "im.herald.wallet", "the app's topic fills in")
                let metrics = try await client.execute(uri: "/metrics", method: .get)
                let text = String(buffer: metrics.body)
                #expect(text.contains(#"herald_delivery_pushes_total{provider="apns",app="wallet",result="delivered",reason="delivered"} 1"#))
                // The first push opens one connection; the rest of the configured two follow it.
                let open = #"herald_delivery_open_connections{provider="apns",app="wallet"} "#
                #expect(text.contains(open + "1") || text.contains(open + "2"))
                #expect(text.contains("herald_delivery_token_refreshes_total"))
            }
        }
    }

    @Test func gorushPushGoesThroughTheNodeToAPNs() async throws {
        try await withNode { node, mock in
            try await node.application.test(.router) { client in
                let token = String(repeating: "ef", count: 32)
                let response = try await client.execute(
                    uri: "/api/push",
                    method: .post,
                    headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: #"{"notifications":[{"tokens":["\#(token)"],"platform":1,"message":"hello"}]}"#)
                )
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == #"{"counts":1,"logs":[],"success":"ok"}"#)
                #expect(mock.accepted.map(\.token) == [token])
                #expect(mock.accepted.first?.topic == "im.herald.wallet")
                let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
                #expect(metrics.contains("gorush_total_push_count 1"))
                #expect(metrics.contains("gorush_ios_success 1"))
            }
        }
    }

    @Test func deadTokenDisablesItsRegistrationThroughTheLog() async throws {
        try await withNode { node, mock in
            let pool = try #require(node.delivery)
            let token = String(repeating: "cd", count: 32)
            mock.script(token: token, .unregistered(since: Date()))
            try await node.application.test(.router) { _ in
                let registry = Registry(log: node.store.log, view: node.store.view)
                let key = try RegistrationKey(scope: .status, subject: [9, 9, 9], installationID: "phone")
                let device = Device(platform: .apns, token: token, app: "wallet")
                try await registry.submit(.register(Registration(key: key, version: 1, device: device)))
                var notification = PushNotification(id: UUID().uuidString.lowercased(), device: device, payload: Array(#"{"aps":{}}"#.utf8))
                notification.registration = key
                let outcome = try await pool.send(notification)
                #expect(outcome == .deadToken(reason: "Unregistered"))
                #expect(try registry.record(for: key)?.registration?.enabled == false)
            }
        }
    }

    @Test func unreadableKeyFileStopsStartUpNamingTheKey() async throws {
        try await withTemporaryDirectory { directory in
            var configuration = HeraldConfiguration()
            configuration.store.path = directory + "/data"
            var apns = APNSAppConfiguration()
            apns.keyFile = directory + "/missing.p8"
            apns.keyID = "K"
            apns.teamID = "T"
            configuration.apps["wallet"] = HeraldConfiguration.App(apns)
            do {
                _ = try HeraldNode.build(configuration: configuration, logger: Logger(label: "test"))
                Issue.record("a missing key file must stop start-up")
            } catch let error as ConfigurationError {
                #expect(error.message.contains("apps.wallet.apns.key-file"))
            }
            // The store was released, so the next start can open it.
            let store = try LocalStore(path: directory + "/data")
            try await store.close()
        }
    }

    @Test func certificateAppsAndFCMAppsBuildAndBadFilesNameTheirKey() async throws {
        try await withTemporaryDirectory { directory in
            let certificate = try TestCertificate()
            try certificate.certificatePEM.write(toFile: directory + "/cert.pem", atomically: true, encoding: .utf8)
            try certificate.privateKeyPEM.write(toFile: directory + "/key.pem", atomically: true, encoding: .utf8)
            try "{}".write(toFile: directory + "/empty.json", atomically: true, encoding: .utf8)
            var configuration = HeraldConfiguration()
            configuration.store.path = directory + "/data"
            var apns = APNSAppConfiguration()
            apns.certificateFile = directory + "/cert.pem"
            apns.certificateKeyFile = directory + "/key.pem"
            apns.topic = "im.herald.legacy"
            configuration.apps["legacy"] = HeraldConfiguration.App(apns)
            let node = try HeraldNode.build(configuration: configuration, logger: Logger(label: "test"))
            #expect((node.delivery?.provider(app: "legacy", platform: .apns) as? APNSProvider)?.configuration.endpoint.clientIdentity != nil)
            try await node.close()

            var fcm = FCMAppConfiguration()
            fcm.serviceAccountFile = directory + "/empty.json"
            configuration.apps = ["android": HeraldConfiguration.App(fcm)]
            do {
                _ = try HeraldNode.build(configuration: configuration, logger: Logger(label: "test"))
                Issue.record("a service-account file without its fields must stop start-up")
            } catch let error as ConfigurationError {
                #expect(error.message.contains("apps.android.fcm.service-account-file"))
                #expect(error.message.contains("project_id"))
            }
        }
    }
}
