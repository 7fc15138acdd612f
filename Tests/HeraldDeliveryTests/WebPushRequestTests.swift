import Crypto
import Foundation
import HeraldCore
@testable import HeraldDelivery
import Synchronization
import Testing

/// The request a notification becomes, the verdict each answer gives, and the VAPID header.
@Suite struct WebPushRequestTests {
    static let token = #"{"endpoint":"https://push.example.org/x","keys":{"p256dh":"\#(Base64URL.encode(P256.KeyAgreement.PrivateKey().publicKey.x963Representation))","auth":"AAAAAAAAAAAAAAAAAAAAAA"}}"#

    static func notification(priority: PushNotification.Priority? = nil, expiration: Int64? = nil, collapseID: String? = nil, payload: Int = 10) -> PushNotification {
        PushNotification(id: "x", device: Device(platform: .webPush, token: Self.token), payload: Array(repeating: UInt8(ascii: "a"), count: payload), priority: priority, expiration: expiration, collapseID: collapseID)
    }

    @Test func headersComeFromTheNotification() throws {
        let request = try WebPushRequest(Self.notification(priority: .immediate, expiration: 1_000_060, collapseID: "chat"), defaultTTL: 900, now: 1_000_000)
        let headers = Dictionary(uniqueKeysWithValues: request.headers)
        #expect(headers["TTL"] == "60")
        #expect(headers["Urgency"] == "high")
        #expect(headers["Topic"] == "chat")
        #expect(headers["Content-Encoding"] == "aes128gcm")
        #expect(request.body.count == 86 + 10 + 1 + 16, "header, payload, delimiter, tag: one record")
        #expect(try WebPushRequest(Self.notification(expiration: 5), defaultTTL: 900, now: 1_000_000).ttl == 0, "an expiry past is now or never")
        #expect(try WebPushRequest(Self.notification(priority: .powerConsiderate), defaultTTL: 900, now: 0).ttl == 900)
        #expect(try WebPushRequest(Self.notification(priority: .powerFirst), defaultTTL: 900, now: 0).urgency == "low")
        #expect(try WebPushRequest(Self.notification(), defaultTTL: 900, now: 0).urgency == "normal")
    }

    @Test func anyExpiryMakesATTLWithinTheLongestAPushServiceKeeps() throws {
        #expect(try WebPushRequest(Self.notification(expiration: .min), defaultTTL: 900, now: 1_000_000).ttl == 0)
        #expect(try WebPushRequest(Self.notification(expiration: .max), defaultTTL: 900, now: 1_000_000).ttl == WebPushRequest.maximumTTL)
        #expect(try WebPushRequest(Self.notification(), defaultTTL: .max, now: 0).ttl == WebPushRequest.maximumTTL)
    }

    @Test func aPayloadPastOneRecordIsRejected() {
        #expect(throws: Never.self) { try WebPushRequest(Self.notification(payload: WebPushRequest.maximumPayload), defaultTTL: 1, now: 0) }
        do {
            _ = try WebPushRequest(Self.notification(payload: WebPushRequest.maximumPayload + 1), defaultTTL: 1, now: 0)
            Issue.record("accepted")
        } catch {
            #expect(error.failure.code == .payloadTooLarge)
        }
    }

    @Test(arguments: [
        (201, DeliveryOutcome.delivered.result), (404, "dead_token"), (410, "dead_token"), (413, "rejected"), (400, "rejected"),
        (401, "failed"), (403, "failed"), (301, "failed"),
    ])
    func answersThatEndThePush(status: Int, result: String) {
        guard case .finish(let outcome) = WebPushAnswer.verdict(status: status, retryAfter: nil, body: Array("nope".utf8)) else {
            Issue.record("\(status) retried")
            return
        }
        #expect(outcome.result == result)
        if status != 201 { #expect(outcome.failure?.detail.hasPrefix("HTTP \(status): nope") == true) }
    }

    @Test func answersThatAreRetried() {
        #expect(WebPushAnswer.verdict(status: 429, retryAfter: "7", body: []) == .retry(reason: "TooManyRequests: HTTP 429", after: .seconds(7), then: .none))
        #expect(WebPushAnswer.verdict(status: 503, retryAfter: nil, body: []) == .retry(reason: "HTTP 503", after: nil, then: .none))
        #expect(WebPushAnswer.verdict(status: 408, retryAfter: nil, body: []) == .retry(reason: "HTTP 408", after: nil, then: .none))
    }

    @Test func theVAPIDTokenIsAnES256JWTForTheOriginReusedUntilItIsOld() async throws {
        let key = P256.Signing.PrivateKey()
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000.5))
        let signer = try VAPIDSigner(key: key, subject: "mailto:ops@example.org", now: { now.withLock { $0 } })
        let first = try await signer.authorization(origin: "https://push.example.org")
        #expect(try await signer.authorization(origin: "https://push.example.org") == first)
        #expect(try await signer.authorization(origin: "https://other.example.org") != first)
        let parts = first.split(separator: " ")
        #expect(parts.first == "vapid")
        #expect(parts.last == "k=" + Substring(Base64URL.encode(key.publicKey.x963Representation)))
        let jwt = try #require(parts.dropFirst().first.map { $0.dropFirst(2).dropLast() })
        let sections = jwt.split(separator: ".")
        #expect(sections.count == 3)
        let header = try #require(try JSONSerialization.jsonObject(with: Data(Base64URL.decode(sections[0])!)) as? [String: Any])
        #expect(header["alg"] as? String == "ES256")
        #expect(header["typ"] as? String == "JWT")
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(Base64URL.decode(sections[1])!)) as? [String: Any])
        #expect(claims["aud"] as? String == "https://push.example.org")
        #expect(claims["sub"] as? String == "mailto:ops@example.org")
        #expect(claims["exp"] as? Int == 1_800_000_000 + 12 * 3600, "whole seconds, 12 hours ahead")
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(sections[2])))
        #expect(key.publicKey.isValidSignature(signature, for: Data((sections[0] + "." + sections[1]).utf8)))
        now.withLock { $0 += 11 * 3600 + 1 }
        #expect(try await signer.authorization(origin: "https://push.example.org") != first, "renewed within an hour of its expiry")
    }

    @Test func vapidKeysAreReadAsPEMOrAsTheWebPushCLIPrintsThem() {
        let key = P256.Signing.PrivateKey()
        #expect(VAPIDSigner.key(fileContents: key.pemRepresentation + "\n")?.rawRepresentation == key.rawRepresentation)
        #expect(VAPIDSigner.key(fileContents: Base64URL.encode(key.rawRepresentation) + "\n")?.rawRepresentation == key.rawRepresentation)
        #expect(VAPIDSigner.key(fileContents: "nonsense") == nil)
    }
}
