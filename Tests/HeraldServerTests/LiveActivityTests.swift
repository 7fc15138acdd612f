import Crypto
import Foundation
import HeraldConfig
import HeraldServer
import HeraldTestTraits
import HeraldTesting
import Hummingbird
import HummingbirdTesting
import HTTPTypes
import Logging
import NIOCore
import Testing

/// Live Activities and iOS 18 broadcast channels, end to end: gorush's Live Activity fields to
/// `/3/device`, and the channel routes to the strict mock's channel management API and
/// broadcast path (apns-live-activities.md).
@Suite(.loadHeavy) struct LiveActivityTests {
    static let bundle = "im.herald.wallet"

    static func withNode(broadcastEnabled: Bool = true, _ body: @escaping @Sendable (any TestClientProtocol, MockAPNS) async throws -> Void) async throws {
        try await OneAPNSAppNode.with(
            mock: { $0.broadcastEnabled = broadcastEnabled },
            apnsYAML: { mock in "      channel-host: 127.0.0.1\n      channel-port: \(mock.port)\n" }
        ) { node, mock in
            try await node.application.test(.router) { client in try await body(client, mock) }
        }
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any], "\(String(buffer: response.body))")
    }

    static func post(_ client: any TestClientProtocol, _ uri: String, _ body: String) async throws -> TestResponse {
        try await client.execute(uri: uri, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
    }

    static let update = #"{"aps":{"event":"update","timestamp":1780000000,"content-state":{"score":"2-1"}}}"#

    @Test func liveActivityStartUpdateAndEndReachAPNsWithTheirHeaders() async throws {
        try await Self.withNode { client, mock in
            let token = String(repeating: "4c", count: 32)
            let entries = [
                #"{"platform":1,"tokens":["\#(token)"],"push_type":"liveactivity","priority":"normal","event":"start","timestamp":1780000000,"content-state":{"score":"0-0"},"attributes-type":"MatchAttributes","attributes":{"home":"A","away":"B"},"title":"Kick-off","message":"A v B"}"#,
                #"{"platform":1,"tokens":["\#(token)"],"push_type":"liveactivity","priority":"normal","event":"update","timestamp":1780000060,"content-state":{"score":"1-0"},"stale-date":1780003600}"#,
                #"{"platform":1,"tokens":["\#(token)"],"push_type":"liveactivity","priority":"high","event":"end","timestamp":1780005400,"content-state":{"score":"2-1"},"dismissal-date":1780009000}"#,
            ]
            for entry in entries {
                let response = try await Self.post(client, "/api/push", #"{"notifications":[\#(entry)]}"#)
                #expect(response.status == .ok, "\(String(buffer: response.body))")
            }
            let pushes = mock.accepted
            try #require(pushes.count == 3)
            for push in pushes {
                #expect(push.pushType == "liveactivity")
                #expect(push.topic == Self.bundle + ".push-type.liveactivity")
            }
            #expect(pushes.map(\.priority) == ["5", "5", "10"])
            let apses = try pushes.map { try #require((try JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any])?["aps"] as? [String: Any]) }
            #expect(apses.map { $0["event"] as? String } == ["start", "update", "end"])
            #expect(apses[0]["attributes-type"] as? String == "MatchAttributes")
            #expect((apses[0]["alert"] as? [String: Any])?["title"] as? String == "Kick-off", "start carries its alert")
            #expect(apses[1]["stale-date"] as? Int == 1_780_003_600)
            #expect((apses[2]["content-state"] as? [String: Any])?["score"] as? String == "2-1")
            #expect(apses[2]["dismissal-date"] as? Int == 1_780_009_000)
        }
    }

    @Test func aChannelIsCreatedListedReadBroadcastToAndDeleted() async throws {
        try await Self.withNode { client, mock in
            let created = try await Self.post(client, "/apns/v1/apps/wallet/channels", #"{"message-storage-policy":1}"#)
            #expect(created.status == .created, "\(String(buffer: created.body))")
            let channel = try #require(try Self.json(created)["channel-id"] as? String)
            let id = try #require(try Self.json(created)["id"] as? String)
            #expect(mock.channels(of: Self.bundle) == [channel: 1])
            #expect(!id.contains("/") && !id.contains("+") && !id.contains("="))

            let listed = try await client.execute(uri: "/apns/v1/apps/wallet/channels", method: .get)
            #expect(listed.status == .ok)
            let channels = try #require(try Self.json(listed)["channels"] as? [[String: Any]])
            #expect(channels.map { $0["channel-id"] as? String } == [channel])

            let read = try await client.execute(uri: "/apns/v1/apps/wallet/channels/\(id)", method: .get)
            #expect(read.status == .ok)
            #expect(try Self.json(read)["message-storage-policy"] as? Int == 1)
            #expect(try Self.json(read)["push-type"] as? String == "LiveActivity")

            let sent = try await Self.post(client, "/apns/v1/apps/wallet/broadcasts", #"{"channel-id":"\#(id)","priority":5,"payload":\#(Self.update)}"#)
            #expect(sent.status == .ok, "\(String(buffer: sent.body))")
            let broadcast = try #require(mock.broadcasts.last)
            #expect(try Self.json(sent)["apns-unique-id"] as? String == broadcast.uniqueID)
            #expect(broadcast.channelID == channel)
            #expect(broadcast.bundleID == Self.bundle)
            #expect(broadcast.pushType == "liveactivity")
            #expect(broadcast.priority == "5")
            #expect(broadcast.expiration == "0")
            let aps = (try JSONSerialization.jsonObject(with: Data(broadcast.payload)) as? [String: Any])?["aps"] as? [String: Any]
            #expect(aps?["event"] as? String == "update")
            #expect(mock.accepted.isEmpty, "a broadcast is no device push")

            let deleted = try await client.execute(uri: "/apns/v1/apps/wallet/channels/\(id)", method: .delete)
            #expect(deleted.status == .noContent)
            #expect(mock.channels(of: Self.bundle).isEmpty)
            let gone = try await Self.post(client, "/apns/v1/apps/wallet/broadcasts", #"{"channel-id":"\#(channel)","payload":\#(Self.update)}"#)
            #expect(gone.status == .badRequest)
            #expect(try Self.json(gone)["reason"] as? String == "ChannelNotRegistered")
        }
    }

    @Test func refusalsAnswerWithAPNsReasonsOrHeraldsOwn() async throws {
        try await Self.withNode { client, mock in
            // Herald's own checks, before APNs is asked.
            for body in [#"{"message-storage-policy":2}"#, #"{}"#, #"{"message-storage-policy":1,"push-type":"Alert"}"#, "[1]"] {
                let refused = try await Self.post(client, "/apns/v1/apps/wallet/channels", body)
                #expect(refused.status == .badRequest, "\(body)")
                #expect(try Self.json(refused)["error"] is String)
            }
            #expect(try await Self.post(client, "/apns/v1/apps/nope/channels", #"{"message-storage-policy":1}"#).status == .notFound)
            let none = try await Self.post(client, "/apns/v1/apps/wallet/channels", #"{"message-storage-policy":0}"#)
            let channel = try #require(try Self.json(none)["channel-id"] as? String)
            let start = #"{"aps":{"event":"start","timestamp":1780000000,"content-state":{}}}"#
            #expect(try await Self.post(client, "/apns/v1/apps/wallet/broadcasts", #"{"channel-id":"\#(channel)","payload":\#(start)}"#).status == .badRequest)
            #expect(try await Self.post(client, "/apns/v1/apps/wallet/broadcasts", #"{"channel-id":"\#(channel)","priority":7,"payload":\#(Self.update)}"#).status == .badRequest)
            // A timestamp in milliseconds, or one no integer holds, is refused; the node stays up.
            for timestamp in ["1780000000000", "1e19", "1.27e308"] {
                let payload = #"{"aps":{"event":"update","timestamp":\#(timestamp)}}"#
                let refused = try await Self.post(client, "/apns/v1/apps/wallet/broadcasts", #"{"channel-id":"\#(channel)","payload":\#(payload)}"#)
                #expect(refused.status == .badRequest, "\(timestamp)")
                #expect((try Self.json(refused)["error"] as? String)?.contains("milliseconds") == true)
            }
            // APNs' own: a policy-0 channel keeps nothing, so a broadcast to it must expire at once.
            let expiring = try await Self.post(client, "/apns/v1/apps/wallet/broadcasts", #"{"channel-id":"\#(channel)","expiration":1780003600,"payload":\#(Self.update)}"#)
            #expect(expiring.status == .badRequest)
            #expect(try Self.json(expiring)["reason"] as? String == "BadExpirationDate")
            let unknown = try await client.execute(uri: "/apns/v1/apps/wallet/channels/dW5rbm93bg", method: .get)
            #expect(unknown.status == .badRequest)
            #expect(try Self.json(unknown)["reason"] as? String == "ChannelNotRegistered")
            #expect(mock.broadcasts.isEmpty)
        }
    }

    @Test func anAppWithoutTheBroadcastCapabilityIsToldSo() async throws {
        try await Self.withNode(broadcastEnabled: false) { client, mock in
            let refused = try await Self.post(client, "/apns/v1/apps/wallet/channels", #"{"message-storage-policy":1}"#)
            #expect(refused.status == .badRequest)
            #expect(try Self.json(refused)["reason"] as? String == "FeatureNotEnabled")
            #expect(mock.channels(of: Self.bundle).isEmpty)
        }
    }
}
