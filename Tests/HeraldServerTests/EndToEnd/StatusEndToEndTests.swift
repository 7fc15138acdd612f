import Foundation
import HeraldCore
import HeraldCrypto
import HeraldDelivery
import HeraldServer
@testable import HeraldStatus
import HeraldTesting
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The Status full flow — register, query, push, unregister, with a key file as `herald keygen`
/// writes it — through
/// `POST /waku/v1/messages` of a node built from YAML, with messages built by the independent
/// Python implementation (`Tests/HeraldStatusTests/vectors`), delivered to the strict mock APNs
/// and mock FCM.
@Suite struct StatusEndToEndTests {
    /// The part of `status.json` this suite reads.
    struct Vectors: Decodable {
        struct Key: Decodable { let `private`: String }
        struct Step: Decodable {
            struct Message: Codable {
                let payload: String
                let contentTopic: String
                let version: Int
                let timestamp: Int64
            }
            struct Expectation: Decodable {
                struct Delivery: Decodable {
                    let platform: String
                    let token: String
                    let topic: String
                    let message: String
                    let data: [String: String]
                }
                let kind: String
                let recipient: String?
                let contentTopic: String?
                let success: Bool?
                let deliveries: [Delivery]?
            }
            let name: String
            let message: Message
            let expect: Expectation
        }
        struct Flow: Decodable { let steps: [Step] }
        let keys: [String: Key]
        let flow: Flow

        static func load() throws -> Vectors {
            let url = URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("HeraldStatusTests/vectors/status.json")
            return try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url))
        }
    }

    func post(_ client: any TestClientProtocol, _ body: ByteBuffer) async throws -> (HTTPResponse.Status, [[String: Any]]) {
        let response = try await client.execute(uri: "/waku/v1/messages", method: .post, headers: [.contentType: "application/json"], body: body)
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [[String: Any]]) ?? []
        return (response.status, json)
    }

    @Test func fullFlowReachesMockAPNSAndMockFCM() async throws {
        let vectors = try Vectors.load()
        try await withTemporaryDirectory { directory in
            // The vectors' server key, in the file format `herald keygen` writes.
            let keyFile = directory + "/status.key"
            try (vectors.keys["server"]!.private + "\n").write(toFile: keyFile, atomically: true, encoding: .utf8)
            let serverKey = try Secp256k1PrivateKey(rawRepresentation: Hex.decode(vectors.keys["server"]!.private)!)
            let extra = "status:\n  identity-key-file: \(keyFile)\n"
            try await GorushEndToEndHarness.with(extraYAML: extra) { harness in
                let dispatcher = try #require(harness.node.frontDoor(StatusFrontDoor.self)?.dispatcher, "Status pushes through the node's pool")
                for step in vectors.flow.steps {
                    let apnsBefore = harness.wallet.accepted.count
                    let fcmBefore = harness.fcm.acceptedCount
                    let (status, replies) = try await self.post(harness.client, ByteBuffer(bytes: Array(try JSONEncoder().encode(step.message))))
                    #expect(status == .ok, "\(step.name)")
                    if step.expect.kind == "none" {
                        #expect(replies.isEmpty, "\(step.name)")
                    } else {
                        try #require(replies.count == 1, "\(step.name)")
                        #expect(replies[0]["contentTopic"] as? String == step.expect.contentTopic, "\(step.name)")
                        #expect(replies[0]["version"] as? Int == 1)
                        // Opened by its recipient, signed by the server, of the expected kind.
                        let reply = try JSONDecoder().decode(WakuMessage.self, from: JSONSerialization.data(withJSONObject: replies[0]))
                        let recipient = try Secp256k1PrivateKey(rawRepresentation: Hex.decode(vectors.keys[step.expect.recipient!]!.private)!)
                        let answer = try StatusAnswer(reply, openedWith: recipient)
                        #expect(answer.signer == serverKey.publicKey, "\(step.name)")
                        switch step.expect.kind {
                        case "registrationResponse": #expect(try answer.registrationResponse().success == step.expect.success, "\(step.name)")
                        case "queryResponse": #expect(try answer.queryResponse().success == step.expect.success, "\(step.name)")
                        default: #expect(try answer.pushResponse().reports.isEmpty == false, "\(step.name)")
                        }
                    }
                    let deliveries = step.expect.deliveries ?? []
                    let apns = deliveries.filter { $0.platform == "apns" }
                    let fcm = deliveries.filter { $0.platform == "fcm" }
                    // Pushes go out after the answer, handed to the front door's dispatcher before it:
                    // once the dispatcher holds none, every push of this step has its outcome.
                    try await waitUntil("the pushes of '\(step.name)' finish (pushes pending)", observing: { dispatcher.pendingCount }) { $0 == 0 }
                    #expect(harness.wallet.accepted.count - apnsBefore == apns.count, "\(step.name): APNs pushes")
                    #expect(harness.fcm.acceptedCount - fcmBefore == fcm.count, "\(step.name): FCM messages")
                    for want in apns {
                        let got = try #require(harness.wallet.accepted.dropFirst(apnsBefore).first { $0.token == want.token })
                        #expect(got.topic == want.topic)
                        #expect(got.pushType == "alert")
                        let payload = try #require(try JSONSerialization.jsonObject(with: Data(got.payload)) as? [String: Any])
                        #expect((payload["aps"] as? [String: Any])?["alert"] as? String == want.message)
                        for (key, value) in want.data { #expect(payload[key] as? String == value, "APNs \(key)") }
                    }
                    for want in fcm {
                        let got = try #require(harness.fcm.accepted.dropFirst(fcmBefore).first { $0.target == .token(want.token) })
                        let message = try #require(try JSONSerialization.jsonObject(with: got.message) as? [String: Any])
                        #expect((message["notification"] as? [String: Any])?["body"] as? String == want.message)
                        #expect(got.data == want.data)
                    }
                }
                // One push request reached both providers; nothing else was pushed (every step's
                // pushes have finished).
                #expect(harness.wallet.accepted.count == 1)
                #expect(harness.fcm.acceptedCount == 1)
            }
        }
    }

    @Test func messagesRouteRejectsBadBodies() async throws {
        try await withTemporaryDirectory { directory in
            let keyFile = directory + "/status.key"
            try (String(repeating: "0", count: 63) + "5\n").write(toFile: keyFile, atomically: true, encoding: .utf8)
            try await GorushEndToEndHarness.with(extraYAML: "status:\n  identity-key-file: \(keyFile)\n") { harness in
                let (notJSON, _) = try await self.post(harness.client, ByteBuffer(string: "hello"))
                #expect(notJSON == .badRequest)
                let (badBase64, _) = try await self.post(harness.client, ByteBuffer(string: #"{"payload":"%%%","contentTopic":"/waku/1/0x00000000/rfc26","version":1}"#))
                #expect(badBase64 == .badRequest)
                // Well-formed but not for this server: accepted, nothing to answer.
                let (unknown, replies) = try await self.post(
                    harness.client,
                    ByteBuffer(string: #"[{"payload":"AAEC","contentTopic":"/waku/1/0x00000000/rfc26","version":1}]"#)
                )
                #expect(unknown == .ok)
                #expect(replies.isEmpty)
                let identity = try await harness.client.execute(uri: "/status/v1/identity", method: .get)
                #expect(String(buffer: identity.body).contains("0x04"))
            }
        }
    }
}
