import Foundation
import HeraldCore
import HeraldTesting
import HeraldWebPush
import Hummingbird
import HummingbirdTesting
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import Testing

/// The relay's answers (webpush-relay.md §5.4) and header mapping (§5.2–5.3), one test each,
/// through a node whose APNs and FCM are the strict mocks.
@Suite struct WebPushEndToEndTests {
    typealias Harness = PushNodeHarness

    // MARK: Accepted

    @Test func acceptedPushIs201WithLocationAndTTLAndReachesProductionAPNs() async throws {
        try await Harness.with { h in
            let token = Harness.apnsToken(1)
            let body = Array(RelayRequestVectors.rfc8291Body)
            let response = try await h.post("/relay-to/production/\(token)", body: body)
            #expect(response.status == .created)
            #expect(response.headers[HTTPField.Name("Location")!]?.hasPrefix("/webpush/messages/") == true)
            #expect(response.headers[HTTPField.Name("TTL")!] == "172800")
            let push = try #require(h.production.accepted.first)
            #expect(h.sandbox.accepted.isEmpty)
            #expect(push.token == token)
            #expect(push.topic == Harness.topic, "the relay app's bundle id")
            #expect(push.pushType == "alert")
            #expect(push.priority == "10")
            #expect(push.collapseID == nil)
            #expect(response.headers[HTTPField.Name("Location")!] == "/webpush/messages/\(push.apnsID)")
            let json = Harness.json(push.payload)
            #expect(json["p"] as? String == RelayRequestVectors.rfc8291P, "the relay page's §8.4 p")
            #expect(json["k"] == nil && json["s"] == nil && json["x"] == nil)
            let aps = try #require(json["aps"] as? [String: Any])
            #expect(aps["alert"] as? String == "🎺")
            #expect(aps["content-available"] as? Int == 1)
            #expect(aps["mutable-content"] as? Int == 1)
            let metrics = try await h.metrics()
            #expect(metrics.contains(#"herald_webpush_pushes_total{route="default",encoding="aes128gcm",outcome="delivered"} 1"#))
        }
    }

    @Test func legacyAesgcmCarriesKeyAndSaltAndExtraGoesToSandbox() async throws {
        try await Harness.with { h in
            let token = Harness.apnsToken(2)
            let response = try await h.post(
                "/relay-to/development/\(token)/acct-1",
                headers: Harness.legacy,
                body: Array(RelayRequestVectors.aesgcmBody)
            )
            #expect(response.status == .created)
            #expect(h.production.accepted.isEmpty)
            let push = try #require(h.sandbox.accepted.first, "any environment but production is the sandbox app")
            let json = Harness.json(push.payload)
            #expect(json["k"] as? String == RelayRequestVectors.k)
            #expect(json["s"] as? String == RelayRequestVectors.s)
            #expect(json["x"] as? String == "acct-1")
            let p = try #require(json["p"] as? String)
            #expect(try Z85Extended.decode(p) == Array(RelayRequestVectors.aesgcmBody))
        }
    }

    @Test func trailingSlashAndUpperCaseTokenAreTaken() async throws {
        try await Harness.with { h in
            let token = Harness.apnsToken(3)
            let answer1 = try await h.post("/relay-to/production/\(token.uppercased())/")
            #expect(answer1.status == .created)
            #expect(h.production.accepted.first?.token == token)
            let payload = try #require(h.production.accepted.first?.payload)
            #expect(Harness.json(payload)["x"] == nil, "a trailing slash is no extra")
        }
    }

    @Test func relayNeedsNoAPIToken() async throws {
        try await Harness.with { h in
            let answer2 = try await h.post("/relay-to/production/\(Harness.apnsToken(4))")
            #expect(answer2.status == .created)
            // The API itself still wants it.
            let api = try await h.client.execute(uri: "/api/push", method: .post, body: ByteBuffer(string: "{}"))
            #expect(api.status == .unauthorized)
        }
    }

    @Test func healthIs200() async throws {
        try await Harness.with { h in
            let response = try await h.client.execute(uri: "/relay-to/_health", method: .get)
            #expect(response.status == .ok)
            #expect(response.body.readableBytes == 0)
            #expect(try await h.client.execute(uri: "/relay-to/_health", method: .head).status == .ok)
        }
    }

    // MARK: Header mapping

    @Test(arguments: [("very-low", "5"), ("low", "5"), ("LOW", "5"), ("normal", "10"), ("high", "10")])
    func urgencyBecomesPriority(urgency: String, priority: String) async throws {
        try await Harness.with { h in
            let answer3 = try await h.post("/relay-to/production/\(Harness.apnsToken(5))", changes: ["Urgency": urgency])
            #expect(answer3.status == .created)
            #expect(h.production.accepted.first?.priority == priority)
        }
    }

    @Test func absentUrgencyIsNormal() async throws {
        try await Harness.with { h in
            let answer4 = try await h.post("/relay-to/production/\(Harness.apnsToken(6))", changes: ["Urgency": nil])
            #expect(answer4.status == .created)
            #expect(h.production.accepted.first?.priority == "10")
        }
    }

    @Test func ttlBecomesExpirationAndZeroMeansNowOrNever() async throws {
        try await Harness.with { h in
            let before = Int(Date().timeIntervalSince1970)
            let answer5 = try await h.post("/relay-to/production/\(Harness.apnsToken(7))", changes: ["TTL": "3600"])
            // The push was built between the two readings, however long a busy machine took.
            let after = Int(Date().timeIntervalSince1970)
            #expect(answer5.status == .created)
            let expirationText = try #require(h.production.accepted.first?.expiration)
            let expiration = try #require(Int(expirationText))
            #expect((before + 3600...after + 3601).contains(expiration))
            let zero = try await h.post("/relay-to/production/\(Harness.apnsToken(8))", changes: ["TTL": "0"])
            #expect(zero.status == .created)
            #expect(zero.headers[HTTPField.Name("TTL")!] == "0")
            #expect(h.production.accepted.last?.expiration == "0", "RFC 8030's TTL 0 is APNs' 0, not the relays' now")
        }
    }

    @Test func ttlAboveTheMaximumIsClampedAndEchoed() async throws {
        try await Harness.with(extraYAML: "  maximum-ttl: 86400\n") { h in
            let response = try await h.post("/relay-to/production/\(Harness.apnsToken(9))", changes: ["TTL": "999999999999999999999"])
            #expect(response.status == .created)
            #expect(response.headers[HTTPField.Name("TTL")!] == "86400")
        }
    }

    @Test func topicBecomesCollapseID() async throws {
        try await Harness.with { h in
            let answer6 = try await h.post("/relay-to/production/\(Harness.apnsToken(10))", changes: ["Topic": "mention-42_x"])
            #expect(answer6.status == .created)
            #expect(h.production.accepted.first?.collapseID == "mention-42_x")
        }
    }

    // MARK: Refused requests

    @Test(arguments: [
        ("/relay-to/production", 404), ("/relay-to/production/", 404), ("/relay-to//\(String(repeating: "ab", count: 32))", 404),
        ("/relay-to/production/xyz", 404), ("/relay-to/production/abc", 404), ("/relay-to/production/\(String(repeating: "ab", count: 101))", 404),
        ("/relay-to/production/ab%20cd", 404), ("/relay-to-fcm/other/\(String(repeating: "t", count: 20))", 404),
        ("/relay-to-fcm/droid/bad%20token", 404),
    ])
    func malformedPathsAndTokensAre404(path: String, status: Int) async throws {
        try await Harness.with { h in
            let response = try await h.post(path)
            #expect(response.status.code == status, "\(path)")
            #expect(h.production.accepted.isEmpty && h.fcm.acceptedCount == 0)
        }
    }

    @Test func environmentWithoutAnAppIs404() async throws {
        try await Harness.with(extraYAML: "  relays: solo=toot\n") { h in
            let response = try await h.post("/solo/relay-to/development/\(Harness.apnsToken(11))")
            #expect(response.status == .notFound)
            #expect(String(buffer: response.body).contains("development"))
            let answer7 = try await h.post("/solo/relay-to/production/\(Harness.apnsToken(11))")
            #expect(answer7.status == .created, "a named relay has its own prefix")
            #expect(h.production.accepted.count == 1)
        }
    }

    @Test func otherMethodsAre405() async throws {
        try await Harness.with { h in
            for method in [HTTPRequest.Method.get, .put, .delete] {
                let response = try await h.client.execute(uri: "/relay-to/production/\(Harness.apnsToken(12))", method: method)
                #expect(response.status == .methodNotAllowed, "\(method)")
                #expect(response.headers[.allow] == "POST")
            }
        }
    }

    @Test(arguments: [nil, "gzip", "aes256gcm", ""])
    func wrongOrMissingContentEncodingIs415(encoding: String?) async throws {
        try await Harness.with { h in
            let response = try await h.post("/relay-to/production/\(Harness.apnsToken(13))", changes: ["Content-Encoding": encoding])
            #expect(response.status == .unsupportedMediaType)
            #expect(String(buffer: response.body).contains("aes128gcm"))
            #expect(h.production.accepted.isEmpty)
        }
    }

    @Test(arguments: ["Crypto-Key", "Encryption"])
    func aesgcmWithoutItsCryptoHeaderIs400(header: String) async throws {
        try await Harness.with { h in
            let response = try await h.post("/relay-to/production/\(Harness.apnsToken(14))", headers: Harness.legacy, changes: [header: nil])
            #expect(response.status == .badRequest)
            #expect(String(buffer: response.body).contains(header))
        }
    }

    @Test func aesgcmWithStandardBase64Is400AndPaddingIsTaken() async throws {
        try await Harness.with { h in
            let path = "/relay-to/production/\(Harness.apnsToken(15))"
            let standard = try await h.post(path, headers: Harness.legacy, changes: ["Encryption": "salt=DGv6ra1nlYgDCS1F+nbzlw"])
            #expect(standard.status == .badRequest)
            let padded = try await h.post(path, headers: Harness.legacy, changes: ["Encryption": "salt=DGv6ra1nlYgDCS1FRnbzlw=="])
            #expect(padded.status == .created, "both reference relays take padding")
        }
    }

    @Test(arguments: [("TTL", nil), ("TTL", "soon"), ("TTL", "-5"), ("Urgency", "urgent"), ("Urgency", "low, high"), ("Topic", "not/base64url"), ("Topic", String(repeating: "a", count: 33))])
    func badRFC8030HeadersAre400(header: String, value: String?) async throws {
        try await Harness.with { h in
            let response = try await h.post("/relay-to/production/\(Harness.apnsToken(16))", changes: [header: value])
            #expect(response.status == .badRequest, "\(header): \(value ?? "absent")")
            #expect(h.production.accepted.isEmpty)
        }
    }

    @Test func bodyOver4096BytesIs413() async throws {
        try await Harness.with { h in
            let response = try await h.post("/relay-to/production/\(Harness.apnsToken(17))", body: Array(repeating: 1, count: 4097))
            #expect(response.status == .contentTooLarge)
            #expect(h.production.accepted.isEmpty)
        }
    }

    // MARK: Size policy

    @Test func bodyThatDoesNotFitAPNsIsAcceptedAndDroppedByDefault() async throws {
        try await Harness.with { h in
            let path = "/relay-to/production/\(Harness.apnsToken(18))"
            // webpush-relay.md §7: 3218 bytes is the largest aes128gcm body that fits.
            let answer8 = try await h.post(path, body: Array(repeating: 9, count: 3218))
            #expect(answer8.status == .created)
            #expect(h.production.accepted.count == 1)
            #expect(h.production.accepted.first?.payload.count == 4096)
            let over = try await h.post(path, body: Array(repeating: 9, count: 3219))
            #expect(over.status == .created, "RFC 8030 forbids 413 up to 4096 bytes; Mastodon would delete the subscription")
            #expect(h.production.accepted.count == 1, "dropped")
            #expect(try await h.metrics().contains(#"outcome="oversize_dropped"} 1"#))
        }
    }

    @Test func reducedPolicySendsTheAlertWithoutTheBody() async throws {
        try await Harness.with(extraYAML: "  oversize: reduced\n") { h in
            let response = try await h.post("/relay-to/production/\(Harness.apnsToken(19))/acct-9", body: Array(repeating: 9, count: 4000))
            #expect(response.status == .created)
            let reduced = try #require(h.production.accepted.first?.payload)
            let json = Harness.json(reduced)
            #expect(json["p"] == nil)
            #expect(json["oversize"] as? Int == 1)
            #expect(json["x"] as? String == "acct-9")
        }
    }

    // MARK: Provider answers

    @Test func deadTokenIs410NowAndOnTheNextPushWithoutAskingAPNs() async throws {
        try await Harness.with { h in
            let token = Harness.apnsToken(20)
            h.production.script(token: token, .unregistered(since: Date()))
            let path = "/relay-to/production/\(token)"
            let first = try await h.post(path)
            #expect(first.status == .gone)
            #expect(String(buffer: first.body).contains("Unregistered"))
            let requests = h.production.requestCount
            let second = try await h.post(path)
            #expect(second.status == .gone)
            #expect(h.production.requestCount == requests, "known dead: APNs is not asked again")
            let metrics = try await h.metrics()
            #expect(metrics.contains(#"outcome="dead_token"} 1"#))
            #expect(metrics.contains(#"outcome="known_dead_token"} 1"#))
            // The same token through the sandbox app is another subscription.
            let answer9 = try await h.post("/relay-to/development/\(token)")
            #expect(answer9.status == .created)
        }
    }

    @Test(arguments: [MockAPNS.TokenState.notForTopic])
    func tokenNotForTopicIs410(state: MockAPNS.TokenState) async throws {
        try await Harness.with { h in
            let token = Harness.apnsToken(21)
            h.production.script(token: token, state)
            let answer10 = try await h.post("/relay-to/production/\(token)")
            #expect(answer10.status == .gone)
        }
    }

    @Test func apnsFailuresAre503WithRetryAfterAndThrottlingIs429() async throws {
        let clock = TestClock()
        try await Harness.with(clock: clock) { h in
            let failing = Harness.apnsToken(22)
            let throttled = Harness.apnsToken(23)
            h.production.script(token: failing, .failing(status: 500, reason: "InternalServerError"))
            h.production.script(token: throttled, .throttled(retryAfterSeconds: nil))
            for (token, status) in [(failing, 503), (throttled, 429)] {
                let done = NIOLockedValueBox(false)
                let answer = Task {
                    defer { done.withLockedValue { $0 = true } }
                    return try await h.post("/relay-to/production/\(token)")
                }
                // The back-offs pass on the test clock as soon as they are taken.
                try await clock.advancing(until: "the relay gives its \(status) answer once the push's back-offs have passed") { done.withLockedValue { $0 } }
                let response = try await answer.value
                #expect(response.status.code == status, "\(token)")
                #expect(response.headers[.retryAfter] != nil)
            }
        }
    }

    @Test func providerRefusingTheRelaysTopicIs502NotA4xx() async throws {
        try await Harness.with { h in
            let token = Harness.apnsToken(24)
            h.production.script(token: token, .failing(status: 400, reason: "TopicDisallowed"))
            let response = try await h.post("/relay-to/production/\(token)")
            #expect(response.status == .badGateway, "Mastodon keeps the subscription and retries")
            #expect(response.headers[.retryAfter] != nil)
        }
    }

    @Test func rateLimitIs429WithRetryAfterPerSubscription() async throws {
        let clock = TestClock()
        try await Harness.with(extraYAML: "  rate-limit: 3\n", clock: clock) { h in
            let path = "/relay-to/production/\(Harness.apnsToken(25))"
            for _ in 0..<3 { let answer11 = try await h.post(path); #expect(answer11.status == .created) }
            let limited = try await h.post(path)
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter] == "20", "one push every 20 s at 3 a minute")
            let answer12 = try await h.post("/relay-to/production/\(Harness.apnsToken(26))")
            #expect(answer12.status == .created, "another subscription")
            clock.advance(by: .seconds(20))
            let answer13 = try await h.post(path)
            #expect(answer13.status == .created)
            #expect(h.production.accepted.count == 5)
        }
    }

    // MARK: FCM

    @Test func fcmVariantCarriesTheFieldsAsData() async throws {
        try await Harness.with { h in
            let token = Harness.fcmToken(1)
            let response = try await h.post(
                "/relay-to-fcm/droid/\(token)/acct-2",
                headers: Harness.legacy,
                changes: ["Urgency": "low", "Topic": "t1", "TTL": "60"],
                body: Array(RelayRequestVectors.aesgcmBody)
            )
            #expect(response.status == .created)
            let message = try #require(h.fcm.accepted.first)
            #expect(message.target == .token(token))
            #expect(message.data["k"] == RelayRequestVectors.k)
            #expect(message.data["s"] == RelayRequestVectors.s)
            #expect(message.data["x"] == "acct-2")
            let p = try #require(message.data["p"])
            #expect(try Z85Extended.decode(p) == Array(RelayRequestVectors.aesgcmBody))
            #expect(message.androidPriority == "NORMAL")
            #expect(message.androidTTL == "60s")
            #expect(message.androidCollapseKey == "t1")
            #expect(try await h.metrics().contains(#"herald_webpush_pushes_total{route="fcm/droid",encoding="aesgcm",outcome="delivered"} 1"#))
        }
    }

    @Test func fcmSenderIDMismatchIs502NotA410() async throws {
        try await Harness.with { h in
            let token = Harness.fcmToken(3)
            h.fcm.script(token: token, .senderIDMismatch)
            let response = try await h.post("/relay-to-fcm/droid/\(token)")
            #expect(response.status == .badGateway, "the wrong service account would otherwise delete every subscription")
            #expect(response.headers[.retryAfter] != nil)
        }
    }

    @Test func fcmThrottlingIs429AndASlowProviderIs503WithinTheDeliveryDeadline() async throws {
        let clock = TestClock()
        try await Harness.with(clock: clock, webPushDeliveryDeadline: .seconds(8)) { h in
            let throttled = Harness.fcmToken(4)
            let failing = Harness.fcmToken(5)
            h.fcm.script(token: throttled, .quotaExceeded(retryAfter: "30"))
            h.fcm.script(token: failing, .unavailable(retryAfter: nil))
            for (token, status) in [(throttled, 429), (failing, 503)] {
                let done = NIOLockedValueBox(false)
                let started = clock.now
                let answer = Task {
                    defer { done.withLockedValue { $0 = true } }
                    return try await h.post("/relay-to-fcm/droid/\(token)")
                }
                try await clock.advancing(until: "the relay gives its \(status) answer once the push's back-offs have passed") { done.withLockedValue { $0 } }
                let response = try await answer.value
                #expect(response.status.code == status, "\(token.prefix(7))")
                #expect(response.headers[.retryAfter] != nil)
                #expect(clock.now - started <= .seconds(8), "webpush.delivery-deadline, not the provider's 60 s")
            }
        }
    }

    @Test func fcmUnregisteredIs410() async throws {
        try await Harness.with { h in
            let token = Harness.fcmToken(2)
            h.fcm.script(token: token, .unregistered)
            let answer14 = try await h.post("/relay-to-fcm/droid/\(token)")
            #expect(answer14.status == .gone)
            // A loaded machine may time out the first request and send it again; the second
            // post must not reach FCM at all.
            let sent = h.fcm.sendRequestCount
            let answer15 = try await h.post("/relay-to-fcm/droid/\(token)")
            #expect(answer15.status == .gone)
            #expect(h.fcm.sendRequestCount == sent)
        }
    }
}
