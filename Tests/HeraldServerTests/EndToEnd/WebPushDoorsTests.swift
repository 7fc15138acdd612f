import Crypto
import Foundation
import HeraldConfig
import HeraldCore
import HeraldServer
import HeraldTestTraits
import HeraldTesting
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// Web Push as an outbound provider behind the front doors, configured from YAML as an operator
/// would: gorush's `/api/push` with Herald's platform 4, and Matrix pushers of kind webpush,
/// to the strict Python push service that decrypts every message.
@Suite(.loadHeavy) struct WebPushDoorsTests {
    /// A node whose app `web` pushes through Web Push to the peer, with `extraYAML` appended.
    static func withNode(
        _ peer: PushServicePeer,
        vapidKey: P256.Signing.PrivateKey,
        extraYAML: String = "",
        _ body: @escaping @Sendable (any TestClientProtocol, HeraldNode) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory { directory in
            let loaded = try await Self.configuration(peer, vapidKey: vapidKey, directory: directory, extraYAML: extraYAML)
            let node = try HeraldNode.build(configuration: loaded, logger: Logger(label: "test"))
            try await node.application.test(.router) { client in try await body(client, node) }
        }
    }

    /// The configuration, from YAML in `directory`, of a node whose app `web` pushes to the peer.
    static func configuration(_ peer: PushServicePeer, vapidKey: P256.Signing.PrivateKey, directory: String, extraYAML: String = "") async throws -> HeraldConfiguration {
        // The form `web-push generate-vapid-keys` prints.
        try Base64URL.encode(vapidKey.rawRepresentation).write(toFile: directory + "/vapid.key", atomically: true, encoding: .utf8)
        let yaml = """
            store:
              path: \(directory)/data
            apps:
              web:
                webpush:
                  vapid-key-file: \(directory)/vapid.key
                  vapid-subject: mailto:ops@herald.test
                  allowed-endpoints: localhost:\(peer.port)
                  allowed-addresses: 127.0.0.0/8
                  ttl: 2h
                  ca-file: \(peer.certificateFile)

            """ + extraYAML
        try yaml.write(toFile: directory + "/herald.yaml", atomically: true, encoding: .utf8)
        return try await HeraldConfiguration.load(from: ConfigurationSources(filePath: directory + "/herald.yaml")).configuration
    }

    @Test func heraldSendPushesToASubscription() async throws {
        let key = P256.Signing.PrivateKey()
        try await PushServicePeer.with(subscriptions: ["a": .ok, "gone": .gone]) { peer in
            try await withTemporaryDirectory { directory in
                let configuration = try await Self.configuration(peer, vapidKey: key, directory: directory)
                var push = OnePush(app: "web", token: peer.token("a"), message: "from the shell")
                push.title = "Herald"
                let answer = try await push.send(configuration: configuration, logger: Logger(label: "test"))
                #expect(answer.provider == "webpush")
                #expect(answer.status == 201)
                #expect(answer.delivered)
                let gone = try await OnePush(app: "web", token: peer.token("gone"), message: "x").send(configuration: configuration, logger: Logger(label: "test"))
                #expect(gone.outcome.result == "dead_token")
                #expect(gone.status == 410)
                let received = try await peer.waitForReceived(2)
                #expect(received.first { $0.id == "a" }?.plaintext == Array(#"{"title":"Herald","body":"from the shell"}"#.utf8))
            }
        }
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any], "\(String(buffer: response.body))")
    }

    static func post(_ client: any TestClientProtocol, _ uri: String, _ body: String) async throws -> TestResponse {
        try await client.execute(uri: uri, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
    }

    static func quoted(_ text: String) -> String {
        String(decoding: JSONValue.string(text).bytes, as: UTF8.self)
    }

    @Test func gorushPlatformFourPushesToSubscriptionsAndReportsDeadOnes() async throws {
        let key = P256.Signing.PrivateKey()
        try await PushServicePeer.with(subscriptions: ["a": .ok, "b": .ok, "gone": .gone], vapidKey: Base64URL.encode(key.publicKey.x963Representation)) { peer in
            try await Self.withNode(peer, vapidKey: key) { client, _ in
                let tokens = ["a", "b", "gone"].map { Self.quoted(peer.token($0)) }.joined(separator: ",")
                let entry = #"{"platform":4,"tokens":[\#(tokens)],"title":"Build 42","message":"passed ✓","image":"https://ci.example/i.png","badge":3,"priority":"high","collapse_id":"build","data":{"url":"/builds/42"},"notif_id":"n-1"}"#
                let response = try await Self.post(client, "/api/push", #"{"notifications":[\#(entry)]}"#)
                #expect(response.status == .ok)
                let answer = try Self.json(response)
                #expect(answer["counts"] as? Int == 3)
                let logs = try #require(answer["logs"] as? [[String: Any]])
                #expect(logs.count == 1)
                #expect(logs.first?["platform"] as? String == "webpush")
                #expect(logs.first?["token"] as? String == "**********" + "https://localhost:\(peer.port)/push/gone".dropFirst(10).dropLast(10) + "**********", "the endpoint alone, masked: never the keys")
                #expect((logs.first?["error"] as? String)?.hasPrefix("HTTP 410") == true)
                let received = try await peer.waitForReceived(3)
                #expect(received.compactMap(\.violation) == [])
                let expected = #"{"title":"Build 42","body":"passed ✓","image":"https://ci.example/i.png","badge":3,"data":{"url":"/builds/42"}}"#
                for message in received {
                    #expect(message.plaintext == Array(expected.utf8), "\(message.id): what the service worker reads")
                    #expect(message.headers["urgency"] == "high")
                    #expect(message.headers["topic"] == "build")
                    #expect(message.headers["ttl"] == "7200", "the app's ttl")
                }
                let stats = try Self.json(try await client.execute(uri: "/api/stat/app", method: .get))
                #expect((stats["webpush"] as? [String: Any])?["push_success"] as? Int == 2)
                #expect((stats["webpush"] as? [String: Any])?["push_error"] as? Int == 1)
            }
        }
    }

    @Test func aSubscriptionOnALoopbackHostNotAllowedIsRefusedUnsent() async throws {
        let key = P256.Signing.PrivateKey()
        try await PushServicePeer.with(subscriptions: ["a": .ok]) { peer in
            try await Self.withNode(peer, vapidKey: key) { client, _ in
                // Allowed addresses, but not this host name on the list.
                let entry = #"{"platform":4,"tokens":[\#(Self.quoted(peer.token("a", host: "127.0.0.1")))],"message":"x"}"#
                let answer = try Self.json(try await Self.post(client, "/api/push", #"{"notifications":[\#(entry)]}"#))
                let logs = try #require(answer["logs"] as? [[String: Any]])
                #expect((logs.first?["error"] as? String)?.contains("allowed-endpoints") == true)
                #expect(try peer.received().isEmpty)
            }
        }
    }

    /// A Matrix pusher of kind webpush as Element Web registers it: pushkey `p256dh`, `data.endpoint`, `data.auth`.
    static func pusher(_ peer: PushServicePeer, _ id: String, host: String = "localhost", extra: String = "") -> (pushkey: String, json: String) {
        let subscription = peer.subscriptions[id]!
        let pushkey = Base64URL.encode(subscription.key.publicKey.x963Representation)
        let data = #"{"endpoint":"https://\#(host):\#(peer.port)/push/\#(id)","auth":"\#(Base64URL.encode(subscription.auth))"\#(extra)}"#
        return (pushkey, #"{"app_id":"org.example.web","pushkey":"\#(pushkey)","pushkey_ts":1700000000,"data":\#(data)}"#)
    }

    @Test func matrixWebPushPushersGetSygnalsJSONAndDeadOnesAreRejected() async throws {
        let key = P256.Signing.PrivateKey()
        try await PushServicePeer.with(subscriptions: ["a": .ok, "gone": .gone, "quiet": .ok, "elsewhere": .ok]) { peer in
            try await Self.withNode(peer, vapidKey: key, extraYAML: "matrix:\n  apps: org.example.web=web\n") { client, _ in
                let a = Self.pusher(peer, "a", extra: #","only_last_per_room":true"#)
                let gone = Self.pusher(peer, "gone")
                let quiet = Self.pusher(peer, "quiet", extra: #","events_only":true"#)
                // Not on the allow-list (the same peer under its address literal): skipped, not rejected.
                let elsewhere = Self.pusher(peer, "elsewhere", host: "127.0.0.1")
                let event = #"{"notification":{"event_id":"$e1","room_id":"!r:example.org","type":"m.room.message","sender":"@bob:example.org","sender_display_name":"Bob","prio":"low","content":{"msgtype":"m.text","body":"hello","formatted_body":"<b>hello</b>"},"counts":{"unread":2},"devices":[\#(a.json),\#(gone.json),\#(elsewhere.json)]}}"#
                let first = try await Self.post(client, "/_matrix/push/v1/notify", event)
                #expect(first.status == .ok)
                #expect(try Self.json(first)["rejected"] as? [String] == [gone.pushkey])
                let received = try await peer.waitForReceived(2)
                #expect(received.compactMap(\.violation) == [])
                let message = try #require(received.first { $0.id == "a" })
                let expected = #"{"room_id":"!r:example.org","event_id":"$e1","sender":"@bob:example.org","sender_display_name":"Bob","type":"m.room.message","unread":2,"content":{"msgtype":"m.text","body":"hello"}}"#
                #expect(try JSONSerialization.jsonObject(with: Data(message.plaintext ?? [])) as? NSObject == (try JSONSerialization.jsonObject(with: Data(expected.utf8)) as? NSObject))
                #expect(message.headers["urgency"] == "low", "prio low")
                #expect(message.headers["topic"]?.count == 32, "only_last_per_room")

                // The homeserver retries after a lost answer: nothing is pushed twice.
                let retried = try await Self.post(client, "/_matrix/push/v1/notify", event)
                #expect(try Self.json(retried)["rejected"] as? [String] == [gone.pushkey])
                // A badge-only update: not for a pusher that wants events only.
                let badge = #"{"notification":{"counts":{"unread":0},"devices":[\#(a.json),\#(quiet.json)]}}"#
                let badged = try await Self.post(client, "/_matrix/push/v1/notify", badge)
                #expect(try Self.json(badged)["rejected"] as? [String] == [])
                let all = try await peer.waitForReceived(3)
                #expect(all.filter { $0.id == "a" }.count == 2, "the event once, the badge once")
                #expect(all.filter { $0.id == "gone" }.count == 1, "a dead pusher is not asked again")
                #expect(all.filter { $0.id == "quiet" || $0.id == "elsewhere" }.isEmpty)
                let badgeMessage = try #require(all.last { $0.id == "a" })
                #expect(badgeMessage.plaintext == Array(#"{"unread":0}"#.utf8))
            }
        }
    }
}
