import HeraldCore
import NIOHPACK
import Testing

@testable import HeraldDelivery

@Suite struct APNSRequestTests {
    static let id = "8f0b1a5c-2d3e-4f50-8a6b-7c8d9e0f1a2b"
    static let token = String(repeating: "ab", count: 32)

    func notification(
        payload: [UInt8] = Array(#"{"aps":{"alert":"hi"}}"#.utf8),
        pushType: String? = nil,
        priority: PushNotification.Priority? = nil,
        collapseID: String? = nil,
        topic: String? = "im.herald.app",
        token: String = Self.token,
        id: String = Self.id
    ) -> PushNotification {
        PushNotification(
            id: id,
            device: Device(platform: .apns, token: token, topic: topic),
            payload: payload,
            priority: priority,
            expiration: 1_900_000_000,
            collapseID: collapseID,
            pushType: pushType
        )
    }

    func refusal(_ notification: PushNotification, defaultTopic: String? = nil) -> APNSReason? {
        do {
            _ = try APNSRequest(notification, defaultTopic: defaultTopic)
            return nil
        } catch {
            return error.reason
        }
    }

    /// Values that become headers or the path are refused before they reach the HTTP/2 layer,
    /// with APNs' own reason, so nothing is retried and no connection is spent.
    @Test(arguments: [
        (String(repeating: "ab", count: 8_192), nil, "im.herald.app", APNSReason.badDeviceToken),
        ("abc", nil, "im.herald.app", .badDeviceToken),
        (String(repeating: "ab", count: 101), nil, "im.herald.app", .badDeviceToken),
        (Self.token, nil, "im.herald\r\nx-injected: 1", .badTopic),
        (Self.token, nil, "im.herald\u{0}app", .badTopic),
        (Self.token, nil, String(repeating: "t", count: 100_000), .badTopic),
        (Self.token, nil, "im herald", .badTopic),
        (Self.token, "sync\r\nx", "im.herald.app", .badCollapseId),
        (Self.token, "nul\u{0}", "im.herald.app", .badCollapseId),
    ] as [(String, String?, String, APNSReason)])
    func headerValuesAreCheckedBeforeSending(token: String, collapseID: String?, topic: String, reason: APNSReason) {
        #expect(throws: APNSRequestError.self) {
            try APNSRequest(self.notification(collapseID: collapseID, topic: topic, token: token), defaultTopic: nil)
        }
        do {
            _ = try APNSRequest(self.notification(collapseID: collapseID, topic: topic, token: token), defaultTopic: nil)
        } catch {
            #expect(error.reason == reason)
            #expect(error.outcome != .delivered && error.outcome.failure?.code.rawValue == reason.rawValue)
        }
    }

    @Test func aLongestAllowedTokenAndTopicAreTaken() throws {
        _ = try APNSRequest(self.notification(topic: String(repeating: "t", count: 255), token: String(repeating: "ab", count: 100)), defaultTopic: nil)
    }

    @Test func alertRequestCarriesEveryHeader() throws {
        let request = try APNSRequest(notification(priority: .immediate, collapseID: "c1"), defaultTopic: nil)
        #expect(request.path == "/3/device/" + Self.token)
        #expect(Set(request.headers.map(\.0)).count == request.headers.count, "no header may be sent twice")
        let headers = Dictionary(request.headers, uniquingKeysWith: { first, _ in first })
        #expect(headers["apns-push-type"] == "alert")
        #expect(headers["apns-topic"] == "im.herald.app")
        #expect(headers["apns-id"] == Self.id)
        #expect(headers["apns-priority"] == "10")
        #expect(headers["apns-expiration"] == "1900000000")
        #expect(headers["apns-collapse-id"] == "c1")
        #expect(headers["content-length"] == String(request.body.count))
    }

    @Test func headerBlockPutsPseudoHeadersFirstAndAddsAuthorization() throws {
        let block = try APNSRequest(notification(), defaultTopic: nil).headerBlock(authority: "api.push.apple.com", authorization: "bearer x")
        let names = block.fields.map(\.name)
        #expect(Set(names.prefix(4)) == [":method", ":scheme", ":path", ":authority"])
        #expect(names.dropFirst(4).allSatisfy { !$0.hasPrefix(":") })
        #expect(block.first(name: "authorization") == "bearer x")
        #expect(try APNSRequest(notification(), defaultTopic: nil).headerBlock(authority: "a", authorization: nil).first(name: "authorization") == nil)
    }

    @Test func pushTypeSuffixIsAddedToABareBundleID() throws {
        let voip = try APNSRequest(notification(pushType: "voip", topic: "im.herald.app"), defaultTopic: nil)
        #expect(Dictionary(uniqueKeysWithValues: voip.headers)["apns-topic"] == "im.herald.app.voip")
        let already = try APNSRequest(notification(pushType: "voip", topic: "im.herald.app.voip"), defaultTopic: nil)
        #expect(Dictionary(uniqueKeysWithValues: already.headers)["apns-topic"] == "im.herald.app.voip")
    }

    @Test func valuesUniqueToOneRequestAreNotIndexed() throws {
        let block = try APNSRequest(notification(), defaultTopic: nil).headerBlock(authority: "a", authorization: nil)
        #expect(block.fields.contains { $0.name == ":path" && !$0.indexable })
        #expect(block.fields.contains { $0.name == "apns-id" && !$0.indexable })
        #expect(block.fields.contains { $0.name == "apns-topic" && $0.indexable })
    }

    @Test func backgroundPushesAlwaysUsePriorityFive() throws {
        let request = try APNSRequest(notification(pushType: "background", priority: .immediate), defaultTopic: nil)
        #expect(Dictionary(uniqueKeysWithValues: request.headers)["apns-priority"] == "5")
    }

    @Test func priorityIsOmittedWhenUnset() throws {
        #expect(Dictionary(uniqueKeysWithValues: try APNSRequest(notification(), defaultTopic: nil).headers)["apns-priority"] == nil)
    }

    @Test func defaultTopicFillsIn() throws {
        let request = try APNSRequest(notification(topic: nil), defaultTopic: "im.herald.default")
        #expect(Dictionary(uniqueKeysWithValues: request.headers)["apns-topic"] == "im.herald.default")
        #expect(refusal(notification(topic: nil)) == .missingTopic)
    }

    @Test func collapseIDUpTo64BytesIsAccepted() {
        #expect(refusal(notification(collapseID: String(repeating: "é", count: 32))) == nil)
        #expect(refusal(notification(collapseID: String(repeating: "é", count: 32) + "x")) == .badCollapseId)
    }

    @Test func payloadLimitsDependOnThePushType() {
        let at4096 = [UInt8](repeating: 0x20, count: 4096)
        let at4097 = [UInt8](repeating: 0x20, count: 4097)
        let at5120 = [UInt8](repeating: 0x20, count: 5120)
        #expect(refusal(notification(payload: at4096)) == nil)
        #expect(refusal(notification(payload: at4097)) == .payloadTooLarge)
        #expect(refusal(notification(payload: at5120, pushType: "voip", topic: "im.herald.app.voip")) == nil)
        #expect(refusal(notification(payload: at5120 + [0x20], pushType: "voip")) == .payloadTooLarge)
        #expect(refusal(notification(payload: [])) == .payloadEmpty)
    }

    @Test func malformedInputIsRefusedWithTheReasonAPNsWouldGive() {
        #expect(refusal(notification(pushType: "banner")) == .invalidPushType)
        #expect(refusal(notification(token: "not-hex")) == .badDeviceToken)
        #expect(refusal(notification(token: "")) == .badDeviceToken)
        #expect(refusal(notification(id: "1234")) == .badMessageId)
    }

    @Test func aMalformedTokenIsADeadToken() {
        #expect(APNSRequestError(.badDeviceToken, "").outcome == .deadToken(reason: "BadDeviceToken"))
        #expect(APNSRequestError(.payloadTooLarge, "").outcome == .rejected(reason: "PayloadTooLarge"))
    }
}
