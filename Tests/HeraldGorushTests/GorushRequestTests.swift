import Foundation
import HeraldCore
import Testing

@testable import HeraldGorush

@Suite struct GorushRequestTests {
    static let statusGoBody = #"{"notifications":[{"tokens":["3c2f5d"],"platform":1,"message":"You have a new message","topic":"im.status.ethereum","data":{"encryptedMessage":"0x","chatId":"0xab","publicKey":"0xcd"}},{"tokens":["fcm-token"],"platform":2,"message":"Someone mentioned you","topic":"","data":{"encryptedMessage":"0x","chatId":"0xab","publicKey":"0xcd"}},{"tokens":["x"],"platform":0,"message":"dropped","topic":"","data":{}}]}"#

    func decode(_ text: String, limit: Int = 100, tokens: Int = 500, targets: Int = 5000) -> Result<[GorushNotification], GorushError> {
        var limits = GorushRequestLimits()
        limits.notifications = limit
        limits.tokens = tokens
        limits.targets = targets
        return Result { () throws(GorushError) in try GorushPushRequest.decode(Array(text.utf8), limits: limits) }
    }

    func refusal(_ text: String, limit: Int = 100, tokens: Int = 500, targets: Int = 5000) -> GorushError? {
        if case .failure(let error) = decode(text, limit: limit, tokens: tokens, targets: targets) { return error }
        return nil
    }

    static func entry(platform: Int, tokens: Int, topic: String = "") -> String {
        let list = (0..<tokens).map { "\"t\($0)\"" }.joined(separator: ",")
        return #"{"platform":\#(platform),"tokens":[\#(list)],"topic":"\#(topic)"}"#
    }

    /// Every platform, iOS included, is capped per entry; the whole request is capped in targets.
    @Test(arguments: [1, 2, 3])
    func tokensPerEntryAndTargetsPerRequestAreCapped(platform: Int) {
        let body = #"{"notifications":[\#(Self.entry(platform: platform, tokens: 3)),\#(Self.entry(platform: platform, tokens: 5))]}"#
        #expect(refusal(body, tokens: 4) == .tooManyTokens(5, notification: 1, limit: 4))
        #expect(GorushError.tooManyTokens(5, notification: 1, limit: 4).message == "Number of tokens(5) in notification 1 over limit(4)")
        #expect(refusal(body, tokens: 5, targets: 7) == .tooManyTargets(8, limit: 7))
        #expect(GorushError.tooManyTargets(8, limit: 7).message == "Number of targets(8) over limit(7)")
        #expect(refusal(body, tokens: 5, targets: 8) == nil)
        // A topic is a target too.
        let topics = #"{"notifications":[\#(Self.entry(platform: platform, tokens: 4, topic: "news"))]}"#
        #expect(refusal(topics, tokens: 4, targets: 4) == .tooManyTargets(5, limit: 4))
    }

    @Test(arguments: [
        "not json",
        "{}",
        #"{"notifications":null}"#,
        #"{"notifications":{}}"#,
        #"{"notifications":[{"tokens":["a"],"platform":1,"mutable_content":1}]}"#,
        #"{"notifications":[{"tokens":"a","platform":1}]}"#,
        #"{"notifications":[{"platform":"1"}]}"#,
        // Go's encoding/json reads integers only from integer literals.
        #"{"notifications":[{"tokens":["a"],"platform":1.0}]}"#,
        #"{"notifications":[{"tokens":["a"],"platform":1,"badge":1e2}]}"#,
        #"{"notifications":[{"tokens":["a"],"platform":1,"expiration":9223372036854775808}]}"#,
        #"{"notifications":[null]}"#,
        #"{"notifications":[{"tokens":["a"],"platform":1}]} trailing"#,
    ])
    func malformedBodiesAreMissingNotifications(body: String) {
        #expect(refusal(body) == .missingNotifications)
    }

    @Test func largeIntegersStayExact() throws {
        let entry = try decode(#"{"notifications":[{"tokens":["a"],"platform":1,"expiration":9007199254740993,"data":{"n":null}}]}"#).get()[0]
        #expect(entry.expiration == 9_007_199_254_740_993)
        #expect(entry.data?["n"] == .null)
    }

    @Test func emptyListHasItsOwnAnswer() {
        #expect(refusal(#"{"notifications":[]}"#) == .emptyNotifications)
    }

    @Test func tooManyNotificationsNamesBothNumbers() {
        let body = #"{"notifications":["# + Array(repeating: #"{"platform":1}"#, count: 3).joined(separator: ",") + "]}"
        #expect(refusal(body, limit: 2) == .tooManyNotifications(3, limit: 2))
        #expect(GorushError.tooManyNotifications(3, limit: 2).message == "Number of notifications(3) over limit(2)")
    }

    @Test func unknownFieldsAreIgnored() throws {
        let notifications = try decode(#"{"notifications":[{"tokens":["a"],"platform":1,"huawei_ttl":"1","whatever":[1]}]}"#).get()
        #expect(notifications.count == 1)
    }

    @Test func statusGoRequestCountsLikeGorush() throws {
        let notifications = try decode(Self.statusGoBody).get()
        let enabled = notifications.filter { $0.enabledPlatform != nil }
        #expect(enabled.count == 2, "platform 0 is dropped")
        // iOS entry: one token plus its non-empty topic; Android entry: one token, empty topic.
        #expect(enabled.map(\.targetCount) == [2, 1])
    }

    @Test func statusGoIOSEntryBecomesGorushsAPNsPush() throws {
        let ios = try decode(Self.statusGoBody).get()[0]
        let pushes = ios.apnsNotifications()
        #expect(pushes.count == 1)
        let push = try #require(pushes.first)
        #expect(push.device.token == "3c2f5d")
        #expect(push.device.topic == "im.status.ethereum")
        #expect(push.pushType == nil, "sent as alert, the client-library default")
        #expect(push.priority == nil, "no apns-priority: APNs defaults to 10")
        #expect(
            String(decoding: push.payload, as: UTF8.self)
                == #"{"aps":{"alert":"You have a new message"},"chatId":"0xab","encryptedMessage":"0x","publicKey":"0xcd"}"#
        )
    }

    @Test func titleMakesTheAlertADictionaryAndAnAlertObjectWins() throws {
        let titled = try decode(#"{"notifications":[{"tokens":["a"],"platform":1,"title":"T","message":"M"}]}"#).get()[0]
        #expect(String(decoding: titled.apnsPayload(), as: UTF8.self) == #"{"aps":{"alert":{"title":"T","body":"M"}}}"#)
        let explicit = try decode(#"{"notifications":[{"tokens":["a"],"platform":1,"title":"T","alert":{"body":"B","subtitle":"S"}}]}"#).get()[0]
        #expect(String(decoding: explicit.apnsPayload(), as: UTF8.self) == #"{"aps":{"alert":{"body":"B","subtitle":"S"}}}"#)
    }

    @Test func apsFlagsAndExtrasFollowGorush() throws {
        let entry = try decode(
            #"{"notifications":[{"tokens":["a"],"platform":1,"message":"m","badge":3,"sound":"default","category":"c","thread-id":"t","content_available":true,"mutable_content":true,"interruption_level":"time-sensitive"}]}"#
        ).get()[0]
        #expect(
            String(decoding: entry.apnsPayload(), as: UTF8.self)
                == #"{"aps":{"alert":"m","badge":3,"sound":"default","category":"c","thread-id":"t","content-available":1,"mutable-content":1,"interruption-level":"time-sensitive"}}"#
        )
    }

    @Test func negativeBadgeIsIgnoredAndSoundDictionariesPassThrough() throws {
        let entry = try decode(#"{"notifications":[{"tokens":["a"],"platform":1,"badge":-1,"sound":{"name":"s.caf","critical":1,"volume":0.5}}]}"#).get()[0]
        #expect(String(decoding: entry.apnsPayload(), as: UTF8.self) == #"{"aps":{"sound":{"critical":1,"name":"s.caf","volume":0.5}}}"#)
        let named = try decode(#"{"notifications":[{"tokens":["a"],"platform":1,"name":"n.caf","volume":1}]}"#).get()[0]
        #expect(String(decoding: named.apnsPayload(), as: UTF8.self) == #"{"aps":{"sound":{"name":"n.caf","volume":1}}}"#)
    }

    @Test func headersMapToTheNotification() throws {
        let id = "8f0b1a5c-2d3e-4f50-8a6b-7c8d9e0f1a2b"
        let entry = try decode(
            #"{"notifications":[{"tokens":["a"],"platform":1,"priority":"high","expiration":1900000000,"collapse_id":"c","push_type":"background","apns_id":"\#(id.uppercased())"}]}"#
        ).get()[0]
        let push = try #require(entry.apnsNotifications().first)
        #expect(push.priority == .immediate)
        #expect(push.expiration == 1_900_000_000)
        #expect(push.collapseID == "c")
        #expect(push.pushType == "background")
        #expect(push.id == id)
    }

    @Test func severalTokensGetSeveralIDs() throws {
        let entry = try decode(#"{"notifications":[{"tokens":["a","b","c"],"platform":1,"apns_id":"8f0b1a5c-2d3e-4f50-8a6b-7c8d9e0f1a2b"}]}"#).get()[0]
        let ids = entry.apnsNotifications().map(\.id)
        #expect(Set(ids).count == 3)
        #expect(!ids.contains("8f0b1a5c-2d3e-4f50-8a6b-7c8d9e0f1a2b"), "one apns-id cannot name three pushes")
    }

    @Test func jsonStringsAreEscaped() {
        var output: [UInt8] = []
        JSONValue.writeString("a\"b\\c\nd\u{01}é", into: &output)
        #expect(String(decoding: output, as: UTF8.self) == #""a\"b\\c\nd\u0001é""#)
    }
}
