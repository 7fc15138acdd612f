import Crypto
import Foundation
import HeraldConfig
import HeraldServer
import HeraldTesting
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore

/// A node built from YAML, as an operator configures it, with two apps: `wallet` (APNs via one
/// strict mock, FCM via the strict mock FCM) and `chat` (APNs via a second mock with another
/// key and topic), and a feedback webhook receiver. Tests drive it through `POST /api/push`.
struct GorushEndToEndHarness {
    static let walletTopic = "im.herald.wallet"
    static let chatTopic = "im.herald.chat"

    let wallet: MockAPNS
    let chat: MockAPNS
    let fcm: MockFCM
    let webhook: WebhookReceiver
    let client: any TestClientProtocol
    let node: HeraldNode

    /// How long one feedback POST may take, in whole seconds: here it only bounds a hang, and a
    /// post cut off on a busy machine would be posted again beside the one the test counts.
    static var feedbackTimeoutSeconds: Int { Int((TestTime.bound(.seconds(30)) / .seconds(1)).rounded(.up)) }

    /// `clock` times the node's back-off and token renewal: a `TestClock` lets a test pass a
    /// Retry-After without waiting for it.
    /// `http2Codec` is `delivery.http2-codec`: the library framing the node's APNs and FCM
    /// connections.
    static func with(
        extraYAML: String = "",
        http2Codec: String = "nghttp2",
        setup: TestingSetup = .router,
        clock: any Clock<Duration> = ContinuousClock(),
        _ body: @escaping @Sendable (GorushEndToEndHarness) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory { directory in
            let walletKey = P256.Signing.PrivateKey()
            let chatKey = P256.Signing.PrivateKey()
            let account = try TestServiceAccount(projectID: "herald-e2e")
            let wallet = try await MockAPNS.start(configuration: .init(keys: [.init(keyID: "WALLET0001", teamID: "TEAM000001", publicKey: walletKey.publicKey)]))
            let chat = try await MockAPNS.start(configuration: .init(keys: [.init(keyID: "CHAT000001", teamID: "TEAM000002", publicKey: chatKey.publicKey)]))
            let fcm = try await MockFCM.start(configuration: account.mockConfiguration())
            let webhook = try await WebhookReceiver.start()
            func stopPeers() async {
                try? await wallet.shutdown()
                try? await chat.shutdown()
                await fcm.shutdown()
                await webhook.stop()
            }
            do {
                try walletKey.pemRepresentation.write(toFile: directory + "/wallet.p8", atomically: true, encoding: .utf8)
                try chatKey.pemRepresentation.write(toFile: directory + "/chat.p8", atomically: true, encoding: .utf8)
                try account.json(tokenURI: fcm.tokenURI).write(toFile: directory + "/sa.json", atomically: true, encoding: .utf8)
                // One file per peer: the three self-signed certificates share a subject name.
                try wallet.certificatePEM.write(toFile: directory + "/wallet-ca.pem", atomically: true, encoding: .utf8)
                try chat.certificatePEM.write(toFile: directory + "/chat-ca.pem", atomically: true, encoding: .utf8)
                try fcm.certificatePEM.write(toFile: directory + "/fcm-ca.pem", atomically: true, encoding: .utf8)
                let yaml = """
                    store:
                      path: \(directory)/data
                    delivery:
                      default-app: wallet
                      http2-codec: \(http2Codec)
                    feedback:
                      url: \(webhook.url)
                      bearer-token: hook-s3cret
                      timeout: \(Self.feedbackTimeoutSeconds)s
                    apps:
                      wallet:
                        apns:
                          key-file: \(directory)/wallet.p8
                          key-id: WALLET0001
                          team-id: TEAM000001
                          topic: \(walletTopic)
                          host: 127.0.0.1
                          port: \(wallet.port)
                          ca-file: \(directory)/wallet-ca.pem
                        fcm:
                          service-account-file: \(directory)/sa.json
                          host: 127.0.0.1
                          port: \(fcm.port)
                          ca-file: \(directory)/fcm-ca.pem
                      chat:
                        apns:
                          key-file: \(directory)/chat.p8
                          key-id: CHAT000001
                          team-id: TEAM000002
                          topic: \(chatTopic)
                          host: 127.0.0.1
                          port: \(chat.port)
                          ca-file: \(directory)/chat-ca.pem

                    """ + extraYAML
                try yaml.write(toFile: directory + "/herald.yaml", atomically: true, encoding: .utf8)
                let effective = try await HeraldConfiguration.load(from: ConfigurationSources(filePath: directory + "/herald.yaml"))
                let node = try HeraldNode.build(configuration: effective.configuration, logger: Logger(label: "test"), configurationText: effective.yaml(), clock: clock)
                try await node.application.test(setup) { client in
                    try await body(GorushEndToEndHarness(wallet: wallet, chat: chat, fcm: fcm, webhook: webhook, client: client, node: node))
                }
            } catch {
                await stopPeers()
                throw error
            }
            await stopPeers()
        }
    }

    /// Posts a gorush request and returns the status and the answer's JSON.
    func push(_ body: String, headers: HTTPFields = [:]) async throws -> (HTTPResponse.Status, [String: Any]) {
        var fields: HTTPFields = [.contentType: "application/json"]
        fields.append(contentsOf: headers)
        let response = try await self.client.execute(uri: "/api/push", method: .post, headers: fields, body: ByteBuffer(string: body))
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]) ?? [:]
        return (response.status, json)
    }

    func logs(_ json: [String: Any]) -> [[String: Any]] {
        json["logs"] as? [[String: Any]] ?? []
    }

    static func apnsToken(_ index: Int) -> String {
        String(format: "%064x", index + 1)
    }

    static func fcmToken(_ index: Int) -> String {
        "device\(index):APA91b" + String(repeating: "q", count: 120)
    }

    static func ios(_ tokens: [String], topic: String? = nil, extra: String = "") -> String {
        let list = tokens.map { "\"\($0)\"" }.joined(separator: ",")
        let topicField = topic.map { #","topic":"\#($0)""# } ?? ""
        return #"{"tokens":[\#(list)],"platform":1,"message":"hello"\#(topicField)\#(extra)}"#
    }

    static func android(_ tokens: [String], extra: String = "") -> String {
        let list = tokens.map { "\"\($0)\"" }.joined(separator: ",")
        return #"{"tokens":[\#(list)],"platform":2,"title":"t","message":"hello","data":{"n":1,"s":"x"}\#(extra)}"#
    }

    static func request(_ notifications: String...) -> String {
        #"{"notifications":[\#(notifications.joined(separator: ","))]}"#
    }
}
