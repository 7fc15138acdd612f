import Foundation
import HeraldTesting
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import Testing

/// `POST /api/push` → delivery pool → strict mock APNs and mock FCM over real TLS and HTTP/2,
/// through a node configured as an operator would configure it.
@Suite struct GorushEndToEndTests {
    typealias Harness = GorushEndToEndHarness

    @Test(arguments: ["nio", "nghttp2"]) func iosAndAndroidAreDelivered(codec: String) async throws {
        try await Harness.with(http2Codec: codec) { h in
            let (status, json) = try await h.push(Harness.request(Harness.ios([Harness.apnsToken(0)]), Harness.android([Harness.fcmToken(0)])))
            #expect(status == .ok)
            #expect(json["counts"] as? Int == 2)
            #expect(h.logs(json).isEmpty)
            #expect(h.wallet.accepted.map(\.token) == [Harness.apnsToken(0)])
            #expect(h.wallet.accepted.first?.topic == Harness.walletTopic)
            let message = try #require(h.fcm.accepted.first)
            #expect(message.target == .token(Harness.fcmToken(0)))
            // gorush's mapping: non-string data values become their JSON text.
            #expect(message.data == ["n": "1", "s": "x"])
            let body = try #require(try JSONSerialization.jsonObject(with: message.message) as? [String: Any])
            #expect((body["notification"] as? [String: String]) == ["title": "t", "body": "hello"])
        }
    }

    @Test(arguments: ["nio", "nghttp2"]) func everyPermanentErrorIsReportedWithTheProvidersReason(codec: String) async throws {
        try await Harness.with(http2Codec: codec) { h in
            let apns = (0..<4).map(Harness.apnsToken)
            h.wallet.script(token: apns[0], .unregistered(since: Date()))
            h.wallet.script(token: apns[1], .notForTopic)
            h.wallet.script(token: apns[2], .failing(status: 400, reason: "BadDeviceToken"))
            h.wallet.script(token: apns[3], .failing(status: 413, reason: "PayloadTooLarge"))
            let fcm = (0..<4).map(Harness.fcmToken)
            h.fcm.script(token: fcm[0], .unregistered)
            h.fcm.script(token: fcm[1], .senderIDMismatch)
            h.fcm.script(token: fcm[2], .invalidArgument("The registration token is not a valid FCM registration token"))
            h.fcm.script(token: fcm[3], .thirdPartyAuthError)
            let (status, json) = try await h.push(Harness.request(Harness.ios(apns), Harness.android(fcm)))
            #expect(status == .ok)
            let errors = Set(h.logs(json).compactMap { $0["error"] as? String })
            #expect(
                errors == [
                    "Unregistered", "DeviceTokenNotForTopic", "BadDeviceToken", "PayloadTooLarge",
                    "UNREGISTERED", "SENDER_ID_MISMATCH", "INVALID_ARGUMENT", "THIRD_PARTY_AUTH_ERROR",
                ]
            )
            #expect(h.logs(json).allSatisfy { $0["type"] as? String == "failed-push" })
            // Permanent errors are not retried.
            #expect(h.wallet.requestCount == 4)
            #expect(h.fcm.sendRequestCount == 4)
            // Dead tokens (and every other failure) reach the feedback webhook too, once each.
            let failed = Set(apns + fcm)
            try await waitUntil("a feedback event for each of the 8 failed tokens (tokens reported)", observing: { Set(h.webhook.received.compactMap { $0["token"] as? String }) }) {
                $0.isSuperset(of: failed)
            }
            let events = h.webhook.received
            #expect(events.count == 8, "one event per failed push")
            #expect(Set(events.compactMap { $0["token"] as? String }) == failed, "no event for a push that did not fail")
            let dead = events.filter { $0["result"] as? String == "dead_token" }.compactMap { $0["error"] as? String }
            #expect(Set(dead) == ["Unregistered", "DeviceTokenNotForTopic", "BadDeviceToken", "UNREGISTERED", "SENDER_ID_MISMATCH"])
        }
    }

    @Test(arguments: ["nio", "nghttp2"]) func transientFailuresAreRetriedThenDelivered(codec: String) async throws {
        let clock = TestClock()
        try await Harness.with(http2Codec: codec, clock: clock) { h in
            h.wallet.failNext(2, status: 503, reason: "ServiceUnavailable")
            h.fcm.failNext(1, .unavailable(retryAfter: nil))
            h.fcm.failNext(1, .internal)
            let answer = Task {
                let (_, json) = try await h.push(Harness.request(Harness.ios([Harness.apnsToken(1)]), Harness.android([Harness.fcmToken(1)])))
                return h.logs(json).isEmpty
            }
            // Two back-offs each, APNs and FCM side by side: the clock jumps past each as soon as
            // it is taken, so none is waited for in real time.
            try await clock.advancing(
                until: "APNs and FCM accept the push after two back-offs each (APNs, FCM accepted)",
                observing: { (h.wallet.accepted.count, h.fcm.acceptedCount) }
            ) { $0.0 > 0 && $0.1 > 0 }
            #expect(try await answer.value, "no failure is reported")
            // At least: a request cut off on a busy machine is sent again.
            #expect(h.wallet.accepted.count >= 1)
            #expect(h.wallet.requestCount >= 3, "two refusals, then the delivery")
            #expect(h.fcm.acceptedCount >= 1)
            #expect(h.fcm.sendRequestCount >= 3, "two refusals, then the delivery")
        }
    }

    @Test func retryAfterIsHonoured() async throws {
        let clock = TestClock()
        try await Harness.with(clock: clock) { h in
            h.wallet.failNext(1, status: 429, reason: "TooManyRequests", retryAfterSeconds: 2)
            h.fcm.failNext(1, .unavailable(retryAfter: "2"))
            let answer = Task {
                let (_, json) = try await h.push(Harness.request(Harness.ios([Harness.apnsToken(2)]), Harness.android([Harness.fcmToken(2)])))
                return h.logs(json).isEmpty
            }
            // Both providers asked for 2 s, longer than either back-off: both pushes wait exactly
            // that long on the node's clock, and not a moment less.
            try await clock.waitForSleepers(2)
            #expect(clock.nextDeadline == clock.now + .seconds(2))
            clock.advance(by: .milliseconds(1900))
            #expect(clock.sleepers == 2)
            #expect(h.wallet.accepted.isEmpty && h.fcm.acceptedCount == 0)
            clock.advance(by: .milliseconds(100))
            #expect(try await answer.value, "no failure is reported")
            #expect(h.wallet.accepted.count == 1)
            #expect(h.fcm.acceptedCount == 1)
        }
    }

    @Test(arguments: ["nio", "nghttp2"]) func goAwayMidStreamLosesNothing(codec: String) async throws {
        try await Harness.with(http2Codec: codec) { h in
            h.wallet.setLatency(.milliseconds(300))
            let tokens = (0..<30).map(Harness.apnsToken)
            async let failures = h.logs(h.push(Harness.request(Harness.ios(tokens))).1).count
            // GOAWAY only once streams are open, so it lands mid-stream.
            try await waitUntil("the first push reaches APNs (requests)", observing: { h.wallet.requestCount }) { $0 > 0 }
            // A grace only a hang outlasts: every stream GOAWAY covers is answered before the mock
            // closes the connection however slow this machine is, so none may be sent again.
            h.wallet.sendGoAway(grace: TestTime.bound(.seconds(30)))
            #expect(try await failures == 0)
            #expect(Set(h.wallet.accepted.map(\.token)) == Set(tokens))
            #expect(h.wallet.accepted.count == tokens.count, "streams GOAWAY covered are not sent again")
        }
    }

    @Test(arguments: ["nio", "nghttp2"]) func aLowerStreamLimitIsFollowed(codec: String) async throws {
        try await Harness.with(http2Codec: codec) { h in
            _ = try await h.push(Harness.request(Harness.ios([Harness.apnsToken(0)])))
            h.wallet.setMaxConcurrentStreams(2)
            // The answer to a push sent after the new SETTINGS follows them on its connection:
            // once it is in, that connection holds to the lowered limit. (Either way the pushes
            // below must all arrive; this makes them meet the limit.)
            let (_, marker) = try await h.push(Harness.request(Harness.ios([Harness.apnsToken(21)])))
            #expect(h.logs(marker).isEmpty)
            h.wallet.setLatency(.milliseconds(50))
            let tokens = (1..<21).map(Harness.apnsToken)
            let (_, json) = try await h.push(Harness.request(Harness.ios(tokens)))
            #expect(h.logs(json).isEmpty)
            #expect(Set(h.wallet.accepted.map(\.token)).isSuperset(of: tokens))
        }
    }

    @Test(arguments: ["nio", "nghttp2"]) func providerTokensAreRefreshedWhenRefused(codec: String) async throws {
        try await Harness.with(http2Codec: codec) { h in
            _ = try await h.push(Harness.request(Harness.android([Harness.fcmToken(0)])))
            h.fcm.revokeAccessTokens()
            let (_, json) = try await h.push(Harness.request(Harness.android([Harness.fcmToken(1)])))
            #expect(h.logs(json).isEmpty)
            #expect(h.fcm.accessTokensIssued == 2)
            // APNs: an ExpiredProviderToken answer retires the connection and the push is sent
            // again; the JWT itself is re-minted only past 20 minutes (clock-driven endpoint test).
            h.wallet.failNext(1, status: 403, reason: "ExpiredProviderToken")
            let (_, apnsJSON) = try await h.push(Harness.request(Harness.ios([Harness.apnsToken(3)])))
            #expect(h.logs(apnsJSON).isEmpty)
            #expect(h.wallet.accepted.map(\.token).contains(Harness.apnsToken(3)))
        }
    }

    @Test func twoAppsUseTheirOwnKeysChosenByTopic() async throws {
        try await Harness.with { h in
            let (_, json) = try await h.push(
                Harness.request(
                    Harness.ios([Harness.apnsToken(0)], topic: Harness.walletTopic),
                    Harness.ios([Harness.apnsToken(1)], topic: Harness.chatTopic)
                )
            )
            #expect(h.logs(json).isEmpty)
            #expect(h.wallet.accepted.map(\.keyID) == ["WALLET0001"])
            #expect(h.chat.accepted.map(\.keyID) == ["CHAT000001"])
            #expect(h.chat.accepted.map(\.token) == [Harness.apnsToken(1)])
        }
    }

    /// gorush's own Android check, above a raised `gorush.max-tokens`.
    @Test func androidLimitsAreReportedBeforeAnswering() async throws {
        try await Harness.with(extraYAML: "gorush:\n  max-tokens: 600\n") { h in
            let many = (0..<501).map(Harness.fcmToken)
            let (status, json) = try await h.push(Harness.request(Harness.android(many), #"{"platform":2,"message":"x"}"#))
            #expect(status == .ok)
            let errors = h.logs(json).compactMap { $0["error"] as? String }
            #expect(errors.contains { $0.contains("at most 500") })
            #expect(errors.contains { $0.contains("at least one") })
            #expect(h.fcm.sendRequestCount == 0)
        }
    }

    /// Herald's caps, on every platform, refuse the whole request in gorush's format before
    /// anything is sent.
    @Test func requestsAboveTheTargetCapsAreRefusedWith400() async throws {
        try await Harness.with(extraYAML: "gorush:\n  max-targets: 700\n") { h in
            let many = (0..<501).map(Harness.apnsToken)
            let (status, json) = try await h.push(Harness.request(Harness.ios([Harness.apnsToken(0)]), Harness.ios(many)))
            #expect(status == .badRequest)
            #expect(json["code"] as? Int == 400)
            #expect(json["message"] as? String == "Number of tokens(501) in notification 1 over limit(500)")
            let (tooMany, total) = try await h.push(Harness.request(Harness.ios(Array(many[0..<400])), Harness.android((0..<301).map(Harness.fcmToken))))
            #expect(tooMany == .badRequest)
            #expect(total["message"] as? String == "Number of targets(701) over limit(700)")
            #expect(h.wallet.accepted.isEmpty)
            #expect(h.fcm.sendRequestCount == 0)
        }
    }

    /// Sync mode holds at most `gorush.queue-limit` pushes across requests: beyond it targets get
    /// gorush's "max capacity reached" at once, which bounds what a burst of requests can hold.
    @Test func syncModeBoundsThePushesHeldAcrossRequests() async throws {
        let clock = TestClock()
        try await Harness.with(extraYAML: "gorush:\n  queue-limit: 4\n", clock: clock) { h in
            // The first request's pushes are refused once and wait for their retries on the node's
            // clock, which moves only once the second request is answered: they hold their places
            // however long that takes.
            h.wallet.failNext(3, status: 503, reason: "ServiceUnavailable")
            async let first = h.push(Harness.request(Harness.ios((0..<3).map(Harness.apnsToken))))
            try await clock.waitForSleepers(3)
            let (status, second) = try await h.push(Harness.request(Harness.ios((3..<5).map(Harness.apnsToken))))
            #expect(status == .ok)
            #expect(h.logs(second).compactMap { $0["error"] as? String } == ["max capacity reached", "max capacity reached"])
            try await clock.advancing(until: "the first request's 3 pushes are delivered after their retries (accepted)", observing: { h.wallet.accepted.count }) { $0 >= 3 }
            let (_, firstAnswer) = try await first
            #expect(h.logs(firstAnswer).isEmpty)
            let (_, third) = try await h.push(Harness.request(Harness.ios((3..<5).map(Harness.apnsToken))))
            #expect(h.logs(third).isEmpty, "places are given back once delivered")
        }
    }

    /// Values that would become APNs headers or paths are refused before a request is made,
    /// with APNs' own reasons, never retried and never costing a provider connection.
    @Test func headerValuesAPNsWouldRefuseNeverReachIt() async throws {
        try await Harness.with { h in
            let (_, warm) = try await h.push(Harness.request(Harness.ios([Harness.apnsToken(0)])))
            #expect(h.logs(warm).isEmpty)
            let requests = h.wallet.requestCount
            let hugeToken = String(repeating: "ab", count: 8192)
            let (status, json) = try await h.push(
                Harness.request(
                    Harness.ios([Harness.apnsToken(1)], topic: "\(Harness.walletTopic)\\r\\nx-injected: 1"),
                    Harness.ios([Harness.apnsToken(2)], topic: String(repeating: "t", count: 100_000)),
                    Harness.ios([Harness.apnsToken(3)], extra: #","collapse_id":"a\u0000b""#),
                    Harness.ios([Harness.apnsToken(4)], extra: #","collapse_id":"line\nbreak""#),
                    Harness.ios([hugeToken]),
                    Harness.ios(["abc"])
                )
            )
            #expect(status == .ok)
            let errors = h.logs(json).compactMap { $0["error"] as? String }
            // Sent at once, so answered in any order.
            #expect(errors.sorted() == ["BadCollapseId", "BadCollapseId", "BadDeviceToken", "BadDeviceToken", "BadTopic", "BadTopic"], "\(errors)")
            #expect(h.wallet.requestCount == requests, "nothing reached the peer")
            // The endpoint keeps two connections (apps.<app>.apns.connections); a replaced one
            // would be a third.
            #expect(h.wallet.connectionsOpened <= 2, "no connection was replaced")
        }
    }

    /// Targets a minute per client address; the answer is gorush's error shape with 429. The
    /// limiter runs on the node's clock, which stands still here: its decision does not depend on
    /// how long the requests take.
    @Test func aClientPastItsRateLimitIsAnswered429() async throws {
        try await Harness.with(extraYAML: "gorush:\n  rate-limit: 5\n", setup: .live, clock: TestClock()) { h in
            let (first, _) = try await h.push(Harness.request(Harness.ios((0..<3).map(Harness.apnsToken))))
            #expect(first == .ok)
            let (second, json) = try await h.push(Harness.request(Harness.ios((3..<6).map(Harness.apnsToken))))
            #expect(second == .tooManyRequests)
            #expect(json["code"] as? Int == 429)
            #expect((json["message"] as? String)?.contains("more than 5 targets a minute") == true, "\(json)")
            #expect(h.wallet.accepted.count == 3, "the refused request pushed nothing")
            let response = try await h.client.execute(uri: "/metrics", method: .get)
            #expect(String(buffer: response.body).contains("herald_gorush_rate_limited_total 1"))
        }
    }

    @Test func configIsServedAsYAMLWithSecretsRedacted() async throws {
        try await Harness.with { h in
            let response = try await h.client.execute(uri: "/api/config", method: .get)
            #expect(response.status == .ok)
            let text = String(buffer: response.body)
            #expect(!text.contains("hook-s3cret"))
            #expect(text.contains("bearer-token: '[REDACTED]'") || text.contains("bearer-token: \"[REDACTED]\""))
            #expect(text.contains("feedback:\n"))
            #expect(text.contains("  wallet:\n"))
        }
    }

    @Test func androidChecksAreReportedInAsyncModeToo() async throws {
        try await Harness.with(extraYAML: "gorush:\n  sync: false\n") { h in
            let (_, json) = try await h.push(Harness.request(#"{"platform":2,"message":"x"}"#))
            #expect(h.logs(json).compactMap { $0["error"] as? String }.contains { $0.contains("at least one") })
        }
    }
}

/// gorush's async mode, the overload answer and the bearer token, on the same node.
@Suite struct GorushAsyncEndToEndTests {
    typealias Harness = GorushEndToEndHarness

    @Test func asyncModeAnswersAtOnceAndReportsFailuresToTheWebhook() async throws {
        let clock = TestClock()
        try await Harness.with(extraYAML: "gorush:\n  sync: false\n", clock: clock) { h in
            let dead = Harness.apnsToken(9)
            // Both pushes are refused once and wait for their retries on the node's clock, which
            // moves only once the answer is in: an answer that waited for APNs could not come.
            h.wallet.failNext(2, status: 503, reason: "ServiceUnavailable")
            h.webhook.refuseNext(1)
            let answered = NIOLockedValueBox(false)
            let answer = Task {
                defer { answered.withLockedValue { $0 = true } }
                let (status, json) = try await h.push(
                    Harness.request(#"{"notif_id":"n-1","tokens":["\#(dead)","\#(Harness.apnsToken(1))"],"platform":1,"message":"m"}"#)
                )
                return (status, json["counts"] as? Int, h.logs(json).isEmpty)
            }
            do {
                try await waitUntil("gorush's answer while both pushes wait for their retries") { answered.withLockedValue { $0 } }
            } catch {
                // Let the pushes end, so the node can stop, and report the hang.
                clock.advance(by: .seconds(3600))
                throw error
            }
            let (status, counts, noFailures) = try await answer.value
            #expect(status == .ok)
            #expect(counts == 2)
            #expect(noFailures)
            try await clock.waitForSleepers(2)
            #expect(h.webhook.attemptCount == 0, "no outcome yet when the answer came")
            // The retry finds the token dead; the receiver refuses the first post, and the webhook
            // backs off on the node's clock too.
            h.wallet.script(token: dead, .unregistered(since: Date()))
            try await clock.advancing(
                until: "the dead token's event reaches the webhook and the other push is delivered (events, accepted)",
                observing: { (h.webhook.received.count, h.wallet.accepted.count) }
            ) { $0.0 > 0 && $0.1 > 0 }
            let event = try #require(h.webhook.received.first)
            #expect(event["error"] as? String == "Unregistered")
            #expect(event["result"] as? String == "dead_token")
            #expect(event["notif_id"] as? String == "n-1")
            #expect(event["platform"] as? String == "ios")
            #expect(event["app"] as? String == "wallet")
            // The receiver refused the first post; the webhook retried it (and once more if a post
            // was cut off on a busy machine).
            #expect(h.webhook.attemptCount >= 2)
            #expect(h.wallet.accepted.map(\.token) == [Harness.apnsToken(1)])
        }
    }

    @Test func aFullAsyncQueueAnswersMaxCapacityReached() async throws {
        let clock = TestClock()
        try await Harness.with(extraYAML: "gorush:\n  sync: false\n  queue-limit: 3\n", clock: clock) { h in
            // The first three are refused once and wait for their retries on the node's clock,
            // which moves only after the second request: they fill the queue until then.
            h.wallet.failNext(3, status: 503, reason: "ServiceUnavailable")
            let (_, first) = try await h.push(Harness.request(Harness.ios((0..<3).map(Harness.apnsToken))))
            #expect(h.logs(first).isEmpty)
            let (status, second) = try await h.push(Harness.request(Harness.ios((3..<5).map(Harness.apnsToken))))
            #expect(status == .ok)
            #expect(h.logs(second).compactMap { $0["error"] as? String } == ["max capacity reached", "max capacity reached"])
            // The queued pushes end before the node stops.
            try await clock.advancing(until: "the queued pushes are delivered after their retries (accepted)", observing: { h.wallet.accepted.count }) { $0 >= 3 }
        }
    }

    @Test func theBearerTokenGuardsTheAPI() async throws {
        try await Harness.with(extraYAML: "api:\n  bearer-token: s3cret\n") { h in
            let (refused, _) = try await h.push(Harness.request(Harness.ios([Harness.apnsToken(0)])))
            #expect(refused == .unauthorized)
            let (accepted, json) = try await h.push(Harness.request(Harness.ios([Harness.apnsToken(0)])), headers: [.authorization: "Bearer s3cret"])
            #expect(accepted == .ok)
            #expect(h.logs(json).isEmpty)
            let health = try await h.client.execute(uri: "/healthz", method: .get)
            #expect(health.status == .ok, "operations endpoints stay open")
            #expect(h.wallet.accepted.count == 1)
        }
    }
}

/// Connections dropped under load: every accepted notification still ends in exactly one outcome.
@Suite struct GorushNoLossTests {
    typealias Harness = GorushEndToEndHarness

    @Test func droppedConnectionsUnderLoadLoseNothing() async throws {
        try await Harness.with { h in
            h.wallet.setLatency(.milliseconds(100))
            let batches = (0..<4).map { batch in (0..<50).map { Harness.apnsToken(batch * 50 + $0) } }
            // Drops spread over the load by how far it got, not by how fast: 200 pushes need at
            // least 200 requests, so each drop lands with pushes still to send.
            let dropper = Task {
                for reached in [20, 80, 140] {
                    try await waitUntil("\(reached) requests reach APNs before a drop (requests)", observing: { h.wallet.requestCount }) { $0 >= reached }
                    h.wallet.dropConnections()
                }
            }
            // Each answer as (counts, failed entries).
            let answers = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                for batch in batches {
                    group.addTask {
                        let json = try await h.push(Harness.request(Harness.ios(batch))).1
                        return (json["counts"] as? Int ?? -1, h.logs(json).count)
                    }
                }
                return try await group.reduce(into: [(Int, Int)]()) { $0.append($1) }
            }
            try await dropper.value
            // Every request answered, every target counted, none reported failed.
            #expect(answers.count == 4)
            #expect(answers.allSatisfy { $0.0 == 50 && $0.1 == 0 })
            let accepted = h.wallet.accepted.map(\.token)
            #expect(Set(accepted) == Set(batches.flatMap { $0 }))
            // At least once: a repeat only for a request whose answer the drop lost.
            #expect(accepted.count >= 200)
        }
    }
}
