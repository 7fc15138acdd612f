import Foundation
import HeraldTestTraits
import HeraldTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// A homeserver's notify requests through the Matrix gateway to the strict mocks: Element's
/// event-id-only pushes as Sygnal builds them, full ones to FCM, the answers Synapse acts on
/// (rejected pushkeys, 502 to retry), and one push per event and device across retries.
@Suite(.loadHeavy) struct MatrixEndToEndTests {
    static let yaml = """
        matrix:
          apps: im.vector.app.ios=toot:apns, im.vector.app.android=droid, im.example.*=toot-dev
          deadline: 3s

        """

    static func with(_ body: @escaping @Sendable (PushNodeHarness) async throws -> Void) async throws {
        try await PushNodeHarness.with(frontDoorYAML: Self.yaml, body)
    }

    /// The pushkey Element registers: the base64 of the APNs token's bytes.
    static func pushkey(_ index: Int) -> String {
        let hex = Array(PushNodeHarness.apnsToken(index).utf8)
        let bytes = stride(from: 0, to: hex.count, by: 2).map { UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
        return Data(bytes).base64EncodedString()
    }

    static func notify(_ harness: PushNodeHarness, _ notification: String) async throws -> (status: HTTPResponse.Status, body: [String: Any]) {
        let response = try await harness.client.execute(
            uri: "/_matrix/push/v1/notify",
            method: .post,
            headers: [.contentType: "application/json"],
            body: ByteBuffer(string: #"{"notification":\#(notification)}"#)
        )
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]) ?? [:]
        return (response.status, object)
    }

    static func device(_ appID: String, _ pushkey: String, data: String = #"{"format":"event_id_only"}"#) -> String {
        #"{"app_id":"\#(appID)","pushkey":"\#(pushkey)","pushkey_ts":1700000000,"data":\#(data)}"#
    }

    static func json(_ bytes: [UInt8]) -> NSObject? {
        try? JSONSerialization.jsonObject(with: Data(bytes)) as? NSObject
    }

    @Test func elementsEventIDOnlyPushReachesAPNsAsSygnalBuildsIt() async throws {
        try await Self.with { harness in
            let data = #"{"format":"event_id_only","default_payload":{"aps":{"mutable-content":1,"alert":{"loc-key":"Notification","loc-args":[]}},"pusher_notification_client_identifier":"c1"}}"#
            let answer = try await Self.notify(harness, #"{"event_id":"$e1","room_id":"!r:example.org","prio":"high","counts":{"unread":3},"devices":[\#(Self.device("im.vector.app.ios", Self.pushkey(1), data: data))]}"#)
            #expect(answer.status == .ok)
            #expect(answer.body["rejected"] as? [String] == [])
            let push = try #require(harness.production.accepted.last)
            #expect(push.token == PushNodeHarness.apnsToken(1))
            #expect(push.topic == PushNodeHarness.topic)
            #expect(push.priority == "10")
            #expect(push.pushType == "alert")
            let sygnal = #"{"aps": {"mutable-content": 1, "alert": {"loc-key": "Notification", "loc-args": []}}, "pusher_notification_client_identifier": "c1", "room_id": "!r:example.org", "event_id": "$e1", "unread_count": 3}"#
            #expect(Self.json(push.payload) == Self.json(Array(sygnal.utf8)))
        }
    }

    @Test func aFullMessageGoesToFCMAsADataMessage() async throws {
        try await Self.with { harness in
            let token = PushNodeHarness.fcmToken(1)
            let answer = try await Self.notify(harness, #"{"event_id":"$e2","room_id":"!r:x","type":"m.room.message","sender":"@bob:x","sender_display_name":"Bob","prio":"low","content":{"msgtype":"m.text","body":"lunch?"},"counts":{"unread":2},"devices":[\#(Self.device("im.vector.app.android", token, data: "{}"))]}"#)
            #expect(answer.status == .ok)
            let message = try #require(harness.fcm.accepted.last)
            #expect(message.data == [
                "event_id": "$e2", "type": "m.room.message", "sender": "@bob:x", "sender_display_name": "Bob", "room_id": "!r:x",
                "content_msgtype": "m.text", "content_body": "lunch?", "prio": "normal", "unread": "2",
            ])
            #expect(message.androidPriority?.lowercased() == "normal")
        }
    }

    @Test func aRetriedRequestIsPushedOnceAndABadgeUpdateEveryTime() async throws {
        try await Self.with { harness in
            let request = #"{"event_id":"$e3","room_id":"!r:x","counts":{"unread":1},"devices":[\#(Self.device("im.vector.app.ios", Self.pushkey(3)))]}"#
            let first = try await Self.notify(harness, request)
            let retry = try await Self.notify(harness, request)
            #expect(first.status == .ok && retry.status == .ok)
            #expect(harness.production.accepted.count == 1, "the homeserver's retry after a lost answer")
            let badge = #"{"id":"","type":null,"sender":"","counts":{"unread":0},"devices":[\#(Self.device("im.vector.app.ios", Self.pushkey(3)))]}"#
            let badges = [try await Self.notify(harness, badge), try await Self.notify(harness, badge)]
            #expect(badges.allSatisfy { $0.status == .ok })
            #expect(harness.production.accepted.count == 3, "badge updates carry no event and are always sent")
            #expect(Self.json(harness.production.accepted.last!.payload) == Self.json(Array(#"{"aps":{"badge":0}}"#.utf8)))
        }
    }

    @Test func aDeadTokenIsRejectedAndRememberedUntilThePusherIsNew() async throws {
        try await Self.with { harness in
            let key = Self.pushkey(4)
            harness.production.script(token: PushNodeHarness.apnsToken(4), .unregistered(since: Date(timeIntervalSince1970: 1_700_000_000)))
            let first = try await Self.notify(harness, #"{"event_id":"$a","room_id":"!r:x","devices":[\#(Self.device("im.vector.app.ios", key))]}"#)
            #expect(first.status == .ok)
            #expect(first.body["rejected"] as? [String] == [key])
            let requests = harness.production.requestCount
            let again = try await Self.notify(harness, #"{"event_id":"$b","room_id":"!r:x","devices":[\#(Self.device("im.vector.app.ios", key))]}"#)
            #expect(again.body["rejected"] as? [String] == [key])
            #expect(harness.production.requestCount == requests, "a pushkey known dead is rejected without asking APNs")
            // Registered again later: pushed again.
            harness.production.script(token: PushNodeHarness.apnsToken(4), nil)
            let renewed = #"{"app_id":"im.vector.app.ios","pushkey":"\#(key)","pushkey_ts":\#(Int(Date().timeIntervalSince1970) + 60),"data":{"format":"event_id_only"}}"#
            let fresh = try await Self.notify(harness, #"{"event_id":"$c","room_id":"!r:x","devices":[\#(renewed)]}"#)
            #expect(fresh.body["rejected"] as? [String] == [])
            #expect(harness.production.accepted.count == 1)
        }
    }

    @Test func aTemporaryFailureAnswers502AndTheRetryPushes() async throws {
        try await Self.with { harness in
            harness.production.fail(every: 1, status: 503, reason: "ServiceUnavailable")
            let request = #"{"event_id":"$t","room_id":"!r:x","devices":[\#(Self.device("im.vector.app.ios", Self.pushkey(5)))]}"#
            let failed = try await Self.notify(harness, request)
            #expect(failed.status == .badGateway, "a temporary failure is never a rejection")
            #expect(failed.body["errcode"] as? String == "M_UNKNOWN")
            harness.production.fail(every: nil)
            let retried = try await Self.notify(harness, request)
            #expect(retried.status == .ok)
            #expect(retried.body["rejected"] as? [String] == [])
            #expect(harness.production.accepted.count == 1)
        }
    }

    @Test func refusalsDiscoveryAndUnknownApps() async throws {
        try await Self.with { harness in
            let notJSON = try await harness.client.execute(uri: "/_matrix/push/v1/notify", method: .post, body: ByteBuffer(string: "nope"))
            #expect(notJSON.status == .badRequest)
            #expect(String(buffer: notJSON.body).contains("M_NOT_JSON"))
            let noDevices = try await Self.notify(harness, #"{"event_id":"$x","devices":[]}"#)
            #expect(noDevices.status == .badRequest)
            #expect(noDevices.body["errcode"] as? String == "M_BAD_JSON")
            #expect(noDevices.body["error"] as? String == "No devices in notification")
            let discovery = try await harness.client.execute(uri: "/_matrix/push/v1/notify", method: .get)
            #expect(discovery.status == .ok)
            #expect(String(buffer: discovery.body) == #"{"unifiedpush":{"gateway":"matrix"}}"#)
            let put = try await harness.client.execute(uri: "/_matrix/push/v1/notify", method: .put)
            #expect(put.status == .methodNotAllowed)
            #expect(String(buffer: put.body).contains("M_UNRECOGNIZED"))
            let other = try await harness.client.execute(uri: "/_matrix/push/v1/other", method: .post)
            #expect(other.status == .notFound)
            #expect(String(buffer: other.body).contains("M_UNRECOGNIZED"))
            let unknown = try await Self.notify(harness, #"{"event_id":"$u","room_id":"!r:x","devices":[\#(Self.device("org.unknown.app", "k")),\#(Self.device("im.example.beta", Self.pushkey(6)))]}"#)
            #expect(unknown.status == .ok)
            #expect(unknown.body["rejected"] as? [String] == ["k"], "an app_id no app serves is rejected; a glob routes the other")
            #expect(harness.sandbox.accepted.count == 1)
        }
    }

    @Test func aLongMessageIsShortenedNotRefused() async throws {
        try await Self.with { harness in
            let long = String(repeating: "ü", count: 3000)
            let answer = try await Self.notify(harness, #"{"event_id":"$l","room_id":"!r:x","type":"m.room.message","sender":"@a:x","room_name":"Room","content":{"msgtype":"m.text","body":"\#(long)"},"devices":[\#(Self.device("im.vector.app.ios", Self.pushkey(7), data: "{}"))]}"#)
            #expect(answer.status == .ok)
            let push = try #require(harness.production.accepted.last)
            #expect(push.payload.count <= 4096)
            let payload = try #require(try JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any])
            let args = ((payload["aps"] as? [String: Any])?["alert"] as? [String: Any])?["loc-args"] as? [String]
            #expect(args?.count == 3)
            #expect(args.map { long.hasPrefix($0[2]) && $0[2].count > 1000 } == true)
        }
    }
}
