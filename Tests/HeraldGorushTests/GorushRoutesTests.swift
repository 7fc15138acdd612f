import CoreMetrics
import Crypto
import Foundation
import HeraldCore
import HeraldDelivery
import HeraldTesting
import Hummingbird
import HummingbirdTesting
import Logging
import NIOPosix
import Testing

@testable import HeraldGorush

/// `POST /api/push` through Herald's pool to the strict mock APNs, as a gorush caller sees it.
@Suite struct GorushRoutesTests {
    func withApp(_ body: @escaping @Sendable (any TestClientProtocol, MockAPNS) async throws -> Void) async throws {
        let key = P256.Signing.PrivateKey()
        let mock = try await MockAPNS.start(configuration: .init(keys: [.init(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", publicKey: key.publicKey)]))
        let tokens = try APNSTokenManager(credentials: .init(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", privateKeyPEM: key.pemRepresentation))
        var configuration = APNSProvider.Configuration(host: "127.0.0.1", port: mock.port, authority: "localhost", trustRootsPEM: [mock.certificatePEM])
        configuration.backoff = Backoff(initial: .milliseconds(10), jitter: 0)
        let endpoint = APNSProvider(configuration: configuration, tokens: tokens, group: MultiThreadedEventLoopGroup.singleton, logger: Logger(label: "test"))
        let pool = AppProviders(apps: [.init(id: "status", providers: [endpoint])], defaultApp: nil, metrics: DeliveryMetrics(factory: TestNoOpMetrics()))
        let router = Router()
        GorushRoutes<BasicRequestContext>(providers: pool, statistics: GorushStatistics(factory: TestNoOpMetrics())).register(on: router)
        let app = Application(router: router)
        do {
            try await app.test(.router) { client in try await body(client, mock) }
        } catch {
            await pool.shutdown()
            try? await mock.shutdown()
            throw error
        }
        await pool.shutdown()
        try await mock.shutdown()
    }

    func post(_ client: any TestClientProtocol, _ body: String) async throws -> (HTTPResponse.Status, [String: Any]) {
        let response = try await client.execute(uri: "/api/push", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
        let json = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any] ?? [:]
        return (response.status, json)
    }

    /// The wrong method is told which to use (RFC 9110 §15.5.6), not that nothing is there.
    @Test func aWrongMethodGets405WithAllow() async throws {
        try await withApp { client, mock in
            let get = try await client.execute(uri: "/api/push", method: .get)
            #expect(get.status == .methodNotAllowed)
            #expect(get.headers[.allow] == "POST")
            #expect(String(buffer: get.body).contains("use POST"))
            let delete = try await client.execute(uri: "/api/stat/app", method: .delete)
            #expect(delete.status == .methodNotAllowed)
            #expect(delete.headers[.allow] == "GET, HEAD")
            #expect(mock.requestCount == 0)
        }
    }

    @Test func malformedRequestGetsGorushsAnswer() async throws {
        try await withApp { client, mock in
            let (status, json) = try await post(client, #"{"notifications":[{"tokens":["a"],"platform":1,"mutable_content":1}]}"#)
            #expect(status == .badRequest)
            #expect(json["code"] as? Int == 400)
            #expect(json["message"] as? String == "Missing notifications field.")
            let (emptyStatus, empty) = try await post(client, #"{"notifications":[]}"#)
            #expect(emptyStatus == .badRequest)
            #expect(empty["message"] as? String == "Notifications field is empty.")
            #expect(mock.requestCount == 0)
        }
    }

    @Test func statusGoRequestIsDeliveredAndCountedLikeGorush() async throws {
        try await withApp { client, mock in
            let token = String(repeating: "3c", count: 32)
            let body = #"{"notifications":[{"tokens":["\#(token)"],"platform":1,"message":"You have a new message","topic":"im.status.ethereum","data":{"encryptedMessage":"0x","chatId":"0xab","publicKey":"0xcd"}}]}"#
            let (status, json) = try await post(client, body)
            #expect(status == .ok)
            #expect(json["success"] as? String == "ok")
            #expect(json["counts"] as? Int == 2, "one token plus the topic, as gorush counts")
            #expect((json["logs"] as? [Any])?.isEmpty == true)
            let accepted = try #require(mock.accepted.first)
            #expect(accepted.token == token)
            #expect(accepted.topic == "im.status.ethereum")
            #expect(String(decoding: accepted.payload, as: UTF8.self) == #"{"aps":{"alert":"You have a new message"},"chatId":"0xab","encryptedMessage":"0x","publicKey":"0xcd"}"#)
        }
    }

    @Test func failedTokensAreReportedWithTheAPNsReasonAndMaskedTokens() async throws {
        try await withApp { client, mock in
            let good = String(repeating: "aa", count: 32)
            let dead = String(repeating: "0123456789", count: 6) + "abcd"
            mock.script(token: dead, .unregistered(since: Date()))
            let body = #"{"notifications":[{"notif_id":"n1","tokens":["\#(good)","\#(dead)"],"platform":1,"message":"hi","topic":"im.app"},{"tokens":["fcm1"],"platform":2,"message":"yo"}]}"#
            let (status, json) = try await post(client, body)
            #expect(status == .ok)
            #expect(json["counts"] as? Int == 4)
            let logs = try #require(json["logs"] as? [[String: Any]])
            #expect(logs.count == 2)
            let ios = try #require(logs.first { $0["platform"] as? String == "ios" })
            #expect(ios["notif_id"] as? String == "n1")
            #expect(ios["type"] as? String == "failed-push")
            #expect(ios["error"] as? String == "Unregistered")
            #expect(ios["message"] as? String == "hi")
            #expect(ios["token"] as? String == "**********" + String(dead.dropFirst(10).dropLast(10)) + "**********")
            let android = try #require(logs.first { $0["platform"] as? String == "android" })
            #expect(android["token"] as? String == "****", "tokens under 20 characters are masked whole")
            #expect(mock.accepted.map(\.token) == [good])
        }
    }

    @Test func statisticsCountLikeGorush() async throws {
        try await withApp { client, mock in
            let dead = String(repeating: "de", count: 32)
            mock.script(token: dead, .unregistered(since: Date()))
            let body = #"{"notifications":[{"tokens":["\#(String(repeating: "ab", count: 32))","\#(dead)"],"platform":1,"topic":"im.app"},{"tokens":["f1"],"platform":2}]}"#
            _ = try await post(client, body)
            let response = try await client.execute(uri: "/api/stat/app", method: .get)
            let json = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any] ?? [:]
            #expect(json["total_count"] as? Int == 4)
            #expect((json["ios"] as? [String: Int]) == ["push_success": 1, "push_error": 1])
            #expect((json["android"] as? [String: Int]) == ["push_success": 0, "push_error": 1])
            #expect((json["huawei"] as? [String: Int]) == ["push_success": 0, "push_error": 0])
        }
    }

    @Test func tokenMaskingMatchesGorush() {
        #expect(GorushLogEntry.mask("") == "")
        #expect(GorushLogEntry.mask("short") == "*****")
        #expect(GorushLogEntry.mask("abcdefghij0123456789") == String(repeating: "*", count: 20))
        #expect(GorushLogEntry.mask("abcdefghijXYZ0123456789") == "**********XYZ**********")
    }
}

/// Metrics go nowhere in these tests; the pool still needs a factory.
struct TestNoOpMetrics: MetricsFactory {
    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { NOOPMetricsHandler.instance }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler { NOOPMetricsHandler.instance }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { NOOPMetricsHandler.instance }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}

@Suite struct GorushTwoAppsTests {
    struct Peer {
        let mock: MockAPNS
        let endpoint: APNSProvider
    }

    func peer(keyID: String, topic: String) async throws -> Peer {
        let key = P256.Signing.PrivateKey()
        let mock = try await MockAPNS.start(configuration: .init(keys: [.init(keyID: keyID, teamID: "TEAM" + keyID.prefix(6), publicKey: key.publicKey)]))
        let tokens = try APNSTokenManager(credentials: .init(keyID: keyID, teamID: "TEAM" + keyID.prefix(6), privateKeyPEM: key.pemRepresentation))
        var configuration = APNSProvider.Configuration(host: "127.0.0.1", port: mock.port, authority: "localhost", trustRootsPEM: [mock.certificatePEM])
        configuration.defaultTopic = topic
        return Peer(mock: mock, endpoint: APNSProvider(configuration: configuration, tokens: tokens, group: MultiThreadedEventLoopGroup.singleton, logger: Logger(label: "test")))
    }

    @Test func topicRoutesEachPushToTheAppThatOwnsIt() async throws {
        let wallet = try await peer(keyID: "WALLET0001", topic: "com.example.wallet")
        let chat = try await peer(keyID: "CHAT000001", topic: "com.example.chat")
        let pool = AppProviders(
            apps: [.init(id: "wallet", providers: [wallet.endpoint]), .init(id: "chat", providers: [chat.endpoint])],
            defaultApp: "wallet",
            metrics: DeliveryMetrics(factory: TestNoOpMetrics())
        )
        #expect(pool.appID(forTopic: "com.example.chat.voip") == "chat")
        #expect(pool.appID(forTopic: "com.example.chatty") == nil)
        let router = Router()
        GorushRoutes<BasicRequestContext>(providers: pool, statistics: GorushStatistics(factory: TestNoOpMetrics())).register(on: router)
        try await Application(router: router).test(.router) { client in
            let token = String(repeating: "12", count: 32)
            let body = #"{"notifications":[{"tokens":["\#(token)"],"platform":1,"message":"a","topic":"com.example.chat"},{"tokens":["\#(token)"],"platform":1,"message":"b","topic":"com.example.wallet"},{"tokens":["\#(token)"],"platform":1,"message":"c"}]}"#
            let response = try await client.execute(uri: "/api/push", method: .post, body: ByteBuffer(string: body))
            #expect(response.status == .ok)
        }
        #expect(chat.mock.accepted.map(\.keyID) == ["CHAT000001"])
        #expect(wallet.mock.accepted.count == 2, "its own topic, and the push naming none goes to the default app")
        await pool.shutdown()
        try await wallet.mock.shutdown()
        try await chat.mock.shutdown()
    }
}
