import HeraldCore
import HeraldMatrix
import Testing

/// The notify body checked as Sygnal checks it: the whole request refused before any push, with
/// Sygnal's messages (docs/matrix-push-facts.md §2.2).
@Suite struct MatrixNotificationTests {
    static func refusal(_ body: String) -> MatrixError? {
        do {
            _ = try MatrixNotification(parsing: Array(body.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        ("not json", "M_NOT_JSON", "Expected JSON request body"),
        (#"{"notification":NaN}"#, "M_NOT_JSON", "Expected JSON request body"),
        ("[1]", "M_BAD_JSON", "Invalid notification: expecting object in 'notification' key"),
        (#"{"notification":[]}"#, "M_BAD_JSON", "Invalid notification: expecting object in 'notification' key"),
        (#"{"notification":{}}"#, "M_BAD_JSON", "Expected list in 'devices' key"),
        (#"{"notification":{"devices":[]}}"#, "M_BAD_JSON", "No devices in notification"),
        (#"{"notification":{"devices":[{"pushkey":"a"}]}}"#, "M_BAD_JSON", "Device with missing or non-string app_id"),
        (#"{"notification":{"devices":[{"app_id":"a","pushkey":1}]}}"#, "M_BAD_JSON", "Device with missing or non-string pushkey"),
        (#"{"notification":{"devices":[{"app_id":"a","pushkey":"k","pushkey_ts":"x"}]}}"#, "M_BAD_JSON", "pushkey_ts is of invalid type"),
        (#"{"notification":{"devices":[{"app_id":"a","pushkey":"k","data":[]}]}}"#, "M_BAD_JSON", "data is of invalid type"),
        (#"{"notification":{"devices":[{"app_id":"a","pushkey":"k","tweaks":1}]}}"#, "M_BAD_JSON", "tweaks is of invalid type"),
        (#"{"notification":{"devices":[{"app_id":"a","pushkey":"k","tweaks":{"sound":1}}]}}"#, "M_BAD_JSON", "sound is of invalid type"),
        (#"{"notification":{"counts":{"unread":"2"},"devices":[{"app_id":"a","pushkey":"k"}]}}"#, "M_BAD_JSON", "unread is of invalid type"),
        (#"{"notification":{"counts":{"missed_calls":1.5},"devices":[{"app_id":"a","pushkey":"k"}]}}"#, "M_BAD_JSON", "missed_calls is of invalid type"),
        (#"{"notification":{"counts":7,"devices":[{"app_id":"a","pushkey":"k"}]}}"#, "M_BAD_JSON", "counts is of invalid type"),
    ])
    func badRequestsAreRefusedWithSygnalsWords(body: String, code: String, message: String) {
        let error = Self.refusal(body)
        #expect(error?.code.rawValue == code)
        #expect(error?.message == message)
    }

    @Test func synapsesBadgeUpdateAndUnknownKeysAreTaken() throws {
        let body = #"{"notification":{"id":"","type":null,"sender":"","counts":{"unread":0},"future":1,"devices":[{"app_id":"im.x","pushkey":"k","pushkey_ts":1700000000,"data":{"url":"https://gw/_matrix/push/v1/notify","format":"event_id_only"}}]}}"#
        let notification = try MatrixNotification(parsing: Array(body.utf8))
        #expect(notification.unread == 0)
        #expect(notification.type == nil)
        #expect(!notification.isEventIDOnly)
        #expect(notification.devices.first?.pushkeyTimestamp == 1_700_000_000)
        #expect(notification.devices.first?.data.contains { $0.0 == "url" } == false, "the pusher's url is not the client's data")
    }

    @Test func aDefaultPayloadThatIsNoObjectMakesNoPush() throws {
        for (payload, usable) in [("", true), (#","default_payload":{"a":1}"#, true), (#","default_payload":null"#, false), (#","default_payload":[1]"#, false), (#","default_payload":"x""#, false)] {
            let body = #"{"notification":{"event_id":"$e","room_id":"!r","devices":[{"app_id":"a","pushkey":"k","data":{"format":"event_id_only"\#(payload)}}]}}"#
            let device = try #require(try MatrixNotification(parsing: Array(body.utf8)).devices.first)
            #expect(device.hasUsableDefaultPayload == usable, "\(payload)")
        }
    }

    @Test func fcmDataValuesAreStrings() throws {
        let body = #"{"notification":{"event_id":"$e","room_id":"!r","devices":[{"app_id":"a","pushkey":"k:1","data":{"default_payload":{"n":1,"o":{"a":true},"s":"x"}}}]}}"#
        let notification = try MatrixNotification(parsing: Array(body.utf8))
        let fields = try #require(MatrixFCMData.build(notification, device: notification.devices[0]))
        guard case .object(let data)? = fields.first(where: { $0.0 == "data" })?.1 else { Issue.record("no data"); return }
        #expect(data.allSatisfy { if case .string = $0.1 { true } else { false } })
        #expect(data.first { $0.0 == "o" }?.1 == .string(#"{"a":true}"#))
    }

    @Test func aHalfMegabyteBodyIsShortenedInFewSteps() throws {
        let long = String(repeating: "é", count: 200_000)
        let body = #"{"notification":{"event_id":"$e","room_id":"!r","type":"m.room.message","sender":"@a:x","content":{"msgtype":"m.text","body":"\#(long)"},"devices":[{"app_id":"a","pushkey":"obLD1OX2BxgpOktcbX6PkKGyw9Tl9gcYKTpLXG1+j5A="}]}}"#
        let notification = try MatrixNotification(parsing: Array(body.utf8))
        let payload = try #require(MatrixAPNSPayload.build(notification, device: notification.devices[0]))
        let bytes = try #require(MatrixAPNSPayload.bytes(payload))
        #expect(bytes.count <= MatrixAPNSPayload.maximumSize)
        #expect(bytes.count > MatrixAPNSPayload.maximumSize - 4, "é is two bytes: at most one short of the limit, plus the quote")
    }

    @Test func pushkeysAreBase64OfTheToken() {
        #expect(MatrixPushkey.apnsToken("obLD1OX2BxgpOktcbX6PkKGyw9Tl9gcYKTpLXG1+j5A=") == "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90")
        #expect(MatrixPushkey.apnsToken("abc") == nil, "unpadded")
        #expect(MatrixPushkey.apnsToken("ab-_") == nil, "base64url is not what clients send")
        #expect(MatrixPushkey.apnsToken("") == nil)
    }
}
