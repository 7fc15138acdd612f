import Foundation
import NIOHPACK
import HeraldCore
import Testing

@testable import HeraldDelivery

@Suite struct FCMRequestTests {
    func push(_ payload: String, token: String = "abc:DEF_123-x") -> PushNotification {
        PushNotification(id: "00000000-0000-0000-0000-000000000000", device: Device(platform: .fcm, token: token), payload: Array(payload.utf8))
    }

    func message(_ request: FCMRequest) throws -> [String: Any] {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        return try #require(root["message"] as? [String: Any])
    }

    @Test func putsTheTokenFirstAndKeepsThePayloadFields() throws {
        let request = try FCMRequest(push(#"{"notification":{"title":"t"},"data":{"a":"1"}}"#), projectID: "p1")
        #expect(request.path == "/v1/projects/p1/messages:send")
        #expect(String(decoding: request.body, as: UTF8.self).hasPrefix(#"{"message":{"token":"abc:DEF_123-x","#))
        let message = try self.message(request)
        #expect((message["data"] as? [String: String]) == ["a": "1"])
    }

    /// The connection's fields first, the request's, then the access token, which NIOHTTP2
    /// keeps out of FCM's HPACK table.
    @Test func theHeaderBlockIsTheConnectionsFieldsTheRequestsAndTheToken() throws {
        let request = try FCMRequest(push(#"{"data":{"a":"1"}}"#), projectID: "p1")
        let block = request.headerBlock(authority: "fcm.googleapis.com", authorization: "Bearer x").fields
        #expect(block.map(\.name) == [":scheme", ":authority", ":method", ":path", "content-type", "content-length", "authorization"])
        #expect(block.first { $0.name == ":path" }?.value == "/v1/projects/p1/messages:send")
        #expect(block.first { $0.name == "content-length" }?.value == String(request.body.count))
        #expect(block.last?.indexable == false)
        #expect(request.headerBlock(authority: "a", authorization: nil).first(name: "authorization") == nil)
    }

    /// A request's pushes share their message: each request is the one it would be alone.
    @Test func aSharedMessageMakesTheSameRequestsAsOneEach() throws {
        let payload = #"{"notification":{"title":"t"},"data":{"a":"1"}}"#
        var first = self.push(payload, token: "tok-1")
        first.expiration = 1_000_100
        first.priority = .immediate
        var second = self.push(payload, token: "tok-2")
        second.expiration = 1_000_100
        second.priority = .immediate
        let message = try FCMMessage(first, now: 1_000_000)
        #expect(message.fits(second, now: 1_000_000))
        for push in [first, second] {
            #expect(try FCMRequest(push, projectID: "p1", message: message).body == FCMRequest(push, projectID: "p1", now: 1_000_000).body)
        }
        // The TTL counts down to the expiration: another second is another message.
        #expect(!message.fits(second, now: 1_000_001))
        var unexpiring = self.push(payload)
        unexpiring.priority = .immediate
        let lasting = try FCMMessage(unexpiring, now: 1_000_000)
        #expect(lasting.fits(unexpiring, now: 1_000_001))
        var otherPayload = self.push(#"{"data":{"a":"2"}}"#)
        otherPayload.priority = .immediate
        #expect(!lasting.fits(otherPayload, now: 1_000_000))
        var otherCollapse = unexpiring
        otherCollapse.collapseID = "c"
        #expect(!lasting.fits(otherCollapse, now: 1_000_000))
    }

    /// A condition message has no target of its own; the payload's condition is its target.
    @Test func aConditionMessageCarriesOnlyThePayloadsMembers() throws {
        let push = PushNotification(id: "00000000-0000-0000-0000-000000000000", device: Device(platform: .fcm, token: ""), payload: Array(#"{"condition":"'a' in topics","data":{"k":"v"}}"#.utf8))
        let request = try FCMRequest(push, projectID: "p1")
        #expect(String(decoding: request.body, as: UTF8.self) == #"{"message":{"condition":"'a' in topics","data":{"k":"v"}}}"#)
        let empty = PushNotification(id: "00000000-0000-0000-0000-000000000000", device: Device(platform: .fcm, token: "t"), payload: [])
        #expect(String(decoding: try FCMRequest(empty, projectID: "p1").body, as: UTF8.self) == #"{"message":{"token":"t"}}"#)
    }

    @Test func theSizeWithoutTargetsIsTheSizeOfTheMessageWrittenWithoutThem() {
        let token: (String, JSONValue) = ("token", .string("abc:DEF_123-x"))
        let topic: (String, JSONValue) = ("topic", .string("news"))
        let condition: (String, JSONValue) = ("condition", .string("'a' in topics && 'b' in topics"))
        let data: (String, JSONValue) = ("data", .object([("k", .string("v\"\u{1}é"))]))
        let android: (String, JSONValue) = ("android", .object([("priority", .string("HIGH"))]))
        let messages: [[(String, JSONValue)]] = [
            [], [token], [token, data], [data, token], [token, data, android], [topic, condition], [data, condition, android],
            [condition], [data], [data, android], [topic, data, condition, android],
        ]
        for message in messages {
            let written = JSONValue.object(message.filter { !["token", "topic", "condition"].contains($0.0) }).bytes.count
            #expect(FCMRequest.sizeWithoutTargets(of: message, serialized: JSONValue.object(message).bytes.count) == written, "\(message.map(\.0))")
        }
    }

    @Test func theLimitCountsTheMessageWithoutItsTarget() throws {
        // {"data":{"k":"…"}} is 17 bytes around the value: 4,096 in all passes, one more does not,
        // however long the token.
        let token = String(repeating: "a", count: 300)
        let fits = push(#"{"data":{"k":""# + String(repeating: "x", count: 4096 - 17) + #""}}"#, token: token)
        #expect(throws: Never.self) { try FCMRequest(fits, projectID: "p") }
        let over = push(#"{"data":{"k":""# + String(repeating: "x", count: 4097 - 17) + #""}}"#, token: token)
        #expect(throws: FCMRequestError.self) { try FCMRequest(over, projectID: "p") }
    }

    @Test func mapsPriorityExpirationAndCollapseIDIntoAndroidConfig() throws {
        var notification = push("{}")
        notification.priority = .powerFirst
        notification.expiration = 1_000_300
        notification.collapseID = "c"
        let android = try #require(try self.message(FCMRequest(notification, projectID: "p", now: 1_000_000))["android"] as? [String: String])
        #expect(android == ["priority": "NORMAL", "ttl": "300s", "collapse_key": "c"])
    }

    @Test func expirationZeroIsNowOrNeverAndLongOnesAreCapped() throws {
        var notification = push("{}")
        notification.expiration = 0
        #expect((try self.message(FCMRequest(notification, projectID: "p", now: 5))["android"] as? [String: String])?["ttl"] == "0s")
        notification.expiration = 10_000_000
        #expect((try self.message(FCMRequest(notification, projectID: "p", now: 5))["android"] as? [String: String])?["ttl"] == "2419200s")
    }

    @Test func negativeOrExtremeExpirationsNeitherTrapNorPass() throws {
        var notification = push("{}")
        notification.expiration = -1
        #expect(throws: FCMRequestError.self) { try FCMRequest(notification, projectID: "p", now: 5) }
        notification.expiration = Int64.max
        #expect((try self.message(FCMRequest(notification, projectID: "p", now: Int64.min))["android"] as? [String: String])?["ttl"] == "2419200s")
    }

    @Test func thePayloadsOwnAndroidFieldsWin() throws {
        var notification = push(#"{"android":{"priority":"normal"}}"#)
        notification.priority = .immediate
        let android = try #require(try self.message(FCMRequest(notification, projectID: "p"))["android"] as? [String: String])
        #expect(android["priority"] == "normal")
    }

    @Test(arguments: [
        (#"{"data":{"n":1}}"#, "message.data[0].value"),
        (#"{"data":{"from":"x"}}"#, "message.data[0].key"),
        (#"{"data":{"google.x":"y"}}"#, "message.data[0].key"),
        (#"{"android":{"data":{"b":true}}}"#, "message.android.data[0].value"),
        (#"{"token":"other"}"#, "message.token"),
        (#"{"condition":"'a' in topics"}"#, "message.condition"),
        (#"[1]"#, "message"),
    ])
    func refusesWithTheFieldFCMWouldName(payload: String, field: String) {
        #expect(throws: FCMRequestError.self) { try FCMRequest(push(payload), projectID: "p") }
        do {
            _ = try FCMRequest(push(payload), projectID: "p")
        } catch {
            #expect(error.field == field)
            #expect(error.outcome == .rejected(reason: "INVALID_ARGUMENT"))
        }
    }

    @Test func refusesOversizedMessagesWithTheTopicLimitForTopics() throws {
        let big = #"{"data":{"k":""# + String(repeating: "x", count: 3000) + #""}}"#
        _ = try FCMRequest(push(big), projectID: "p")
        let topic = PushNotification(id: "i", device: Device(platform: .fcm, token: "", topic: "news"), payload: Array(big.utf8))
        #expect(throws: FCMRequestError.self) { try FCMRequest(topic, projectID: "p") }
    }

    static func topic(_ name: String) -> PushNotification {
        PushNotification(id: "i", device: Device(platform: .fcm, token: "", topic: name), payload: Array("{}".utf8))
    }

    /// Topic names become part of the message FCM checks: the legacy `/topics/` prefix is
    /// dropped, anything outside FCM's alphabet is refused at once with its code.
    @Test func topicNamesAreChecked() throws {
        let legacy = try FCMRequest(Self.topic("/topics/news.en~1%2"), projectID: "p")
        #expect(String(decoding: legacy.body, as: UTF8.self).contains(#""topic":"news.en~1%2""#))
        for bad in ["has space", "new\nline", "nul\u{0}", "/topics/", "é", String(repeating: "a", count: 901)] {
            do {
                _ = try FCMRequest(Self.topic(bad), projectID: "p")
                Issue.record("\(bad.debugDescription) was taken")
            } catch {
                #expect(error.field == "message.topic")
                #expect(error.outcome == .rejected(reason: "INVALID_ARGUMENT"))
            }
        }
    }

    @Test func refusesMalformedTokens() {
        #expect(throws: FCMRequestError.self) { try FCMRequest(self.push("{}", token: "has space"), projectID: "p") }
        #expect(throws: FCMRequestError.self) { try FCMRequest(self.push("{}", token: String(repeating: "a", count: 4097)), projectID: "p") }
    }
}

@Suite struct FCMDecisionTests {
    func response(_ status: Int, _ body: String, headers: [(String, String)] = []) -> FCMResponse {
        FCMResponse(HTTP2Response(status: status, headers: .init(headers), body: Array(body.utf8)))
    }

    static func envelope(_ code: Int, _ status: String, _ errorCode: String?) -> String {
        let details = errorCode.map { #","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#($0)"}]"# } ?? ""
        return #"{"error":{"code":\#(code),"message":"m","status":"\#(status)"\#(details)}}"#
    }

    @Test func decidesOnErrorCodeNotStatus() {
        // An older FCM answered UNREGISTERED inside an INVALID_ARGUMENT envelope.
        let response = self.response(400, Self.envelope(400, "INVALID_ARGUMENT", "UNREGISTERED"))
        #expect(response.errorCode == .unregistered)
        #expect(response.decision == .finish(.deadToken(reason: "UNREGISTERED")))
    }

    @Test func aBareUnauthenticatedRefreshesTheToken() {
        #expect(self.response(401, Self.envelope(401, "UNAUTHENTICATED", nil)).decision == .retry(reason: "UNAUTHENTICATED", after: nil, then: .refreshToken))
        #expect(self.response(401, Self.envelope(401, "UNAUTHENTICATED", "THIRD_PARTY_AUTH_ERROR")).decision == .finish(.failed(reason: "THIRD_PARTY_AUTH_ERROR")))
    }

    @Test func quotaWaitsAtLeastAMinuteAndLongerWhenAsked() {
        #expect(self.response(429, Self.envelope(429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED")).decision == .retry(reason: "QUOTA_EXCEEDED", after: .seconds(60), then: .none))
        let asked = self.response(429, Self.envelope(429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED"), headers: [("retry-after", "120")])
        #expect(asked.decision == .retry(reason: "QUOTA_EXCEEDED", after: .seconds(120), then: .none))
    }

    @Test func serverErrorsWithoutDetailsRetryAndAnHTMLNotFoundFails() {
        #expect(self.response(503, "").decision == .retry(reason: "HTTP 503", after: nil, then: .none))
        #expect(self.response(404, "<html>gone</html>").decision == .finish(.failed(reason: "HTTP 404: not an FCM v1 endpoint")))
        #expect(self.response(200, #"{"name":"projects/p/messages/1"}"#).name == "projects/p/messages/1")
    }
}

@Suite struct FCMServiceAccountTests {
    @Test func readsGooglesKeyFile() throws {
        let json = #"{"type":"service_account","project_id":"p","private_key_id":"k1","private_key":"-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n","client_email":"a@p.iam.gserviceaccount.com"}"#
        let account = try FCMServiceAccount(json: Data(json.utf8))
        #expect(account.projectID == "p")
        #expect(account.privateKeyID == "k1")
        #expect(account.tokenURI == FCMServiceAccount.defaultTokenURI)
    }

    @Test(arguments: [
        (#"{"type":"authorized_user"}"#, "type"),
        (#"{"type":"service_account","client_email":"a","private_key":"-----BEGIN PRIVATE KEY-----"}"#, "project_id"),
        (#"{"project_id":"p","private_key":"-----BEGIN PRIVATE KEY-----"}"#, "client_email"),
        (#"{"project_id":"p","client_email":"a","private_key":"nope"}"#, "private_key"),
        ("not json", "not a service-account"),
    ])
    func namesWhatIsWrong(json: String, expected: String) {
        do {
            _ = try FCMServiceAccount(json: Data(json.utf8))
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.message.contains(expected))
        }
    }
}
