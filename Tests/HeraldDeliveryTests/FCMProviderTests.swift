import Foundation
import HeraldCore
import HeraldTestTraits
import HeraldTesting
import Synchronization
import Testing

@testable import HeraldDelivery

/// `FCMProvider` against the strict mock FCM over real TLS and HTTP/2, OAuth exchange included.
@Suite struct FCMProviderTests {
    @Test func deliversWithTheAndroidFieldsFromTheNotification() async throws {
        try await MockFCMHarness.with { harness in
            var push = MockFCMHarness.notification()
            push.priority = .immediate
            push.collapseID = "news"
            push.expiration = Int64(Date().timeIntervalSince1970) + 600
            let outcome = try await harness.send(push)
            #expect(outcome == .delivered)
            let accepted = try #require(harness.mock.accepted.first)
            #expect(accepted.target == .token(MockFCMHarness.deviceToken()))
            #expect(accepted.project == "herald-fcm")
            #expect(accepted.data == ["k": "v"])
            #expect(accepted.androidPriority == "HIGH")
            #expect(accepted.androidCollapseKey == "news")
            let ttl = try #require(accepted.androidTTL.flatMap { Int($0.dropLast()) })
            #expect((590...600).contains(ttl))
            #expect(accepted.overHTTP2)
            #expect(harness.mock.accessTokensIssued == 1)
        }
    }

    @Test func oneAccessTokenServesManyPushes() async throws {
        try await MockFCMHarness.with { harness in
            let outcomes = try await withThrowingTaskGroup(of: DeliveryOutcome.self) { group in
                for index in 0..<20 {
                    group.addTask { try await harness.send(MockFCMHarness.notification(token: MockFCMHarness.deviceToken(index))) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.allSatisfy { $0 == .delivered })
            #expect(harness.mock.acceptedCount == 20)
            #expect(harness.mock.accessTokensIssued == 1)
        }
    }

    /// FCM answers every push with a body; 1,500 of them pass the 65,535-byte connection window
    /// many times over, so the answers keep coming only if Herald reopens the window.
    @Test(.loadHeavy) func answersKeepComingPastTheInitialReceiveWindow() async throws {
        try await MockFCMHarness.with(configure: {
            $0.connections = 1
            // Bounds on a hang: on a loaded machine an answer may come late and its request be
            // sent again, which is not what this test is about.
            $0.requestTimeout = TestTime.bound(.seconds(30))
            $0.deadline = TestTime.bound(.seconds(120))
        }) { harness in
            // The access token and the send connection first, so that any later connection is
            // a replaced one.
            #expect(try await harness.send(MockFCMHarness.notification()) == .delivered)
            let connections = harness.mock.connectionsAccepted
            let count = 1_500
            let delivered = try await withThrowingTaskGroup(of: DeliveryOutcome.self) { group in
                var delivered = 0
                for index in 0..<count {
                    // At most 100 in flight, the mock's stream limit.
                    if index >= 100, try await group.next() == .delivered { delivered += 1 }
                    group.addTask { try await harness.send(MockFCMHarness.notification(token: MockFCMHarness.deviceToken(index))) }
                }
                for try await outcome in group where outcome == .delivered { delivered += 1 }
                return delivered
            }
            // Every answer came back on the one connection: its receive window kept refilling. A
            // request timed out on a loaded machine may have been sent again on it.
            #expect(delivered == count)
            #expect(harness.mock.connectionsAccepted == connections, "a stalled connection was replaced")
            #expect(harness.mock.acceptedCount >= count)
            #expect(harness.mock.sendRequestCount >= count)
        }
    }

    @Test(arguments: [
        (MockFCM.TokenState.unregistered, DeliveryOutcome.deadToken(reason: "UNREGISTERED")),
        (.senderIDMismatch, .deadToken(reason: "SENDER_ID_MISMATCH")),
        (.invalidArgument("bad token"), .rejected(reason: "INVALID_ARGUMENT")),
        (.thirdPartyAuthError, .failed(reason: "THIRD_PARTY_AUTH_ERROR")),
    ])
    func permanentErrorsEndWithoutRetry(state: MockFCM.TokenState, expected: DeliveryOutcome) async throws {
        try await MockFCMHarness.with { harness in
            let token = MockFCMHarness.deviceToken(7)
            harness.mock.script(token: token, state)
            let outcome = try await harness.send(MockFCMHarness.notification(token: token))
            #expect(outcome == expected)
            #expect(harness.mock.sendRequestCount == 1)
            // THIRD_PARTY_AUTH_ERROR is about credentials stored in Firebase, not the OAuth token.
            #expect(harness.mock.accessTokensIssued == 1)
        }
    }

    @Test func retriesUnavailableAndInternalThenDelivers() async throws {
        try await MockFCMHarness.with(retriesOnTestClock: true) { harness in
            harness.mock.failNext(1, .unavailable(retryAfter: nil))
            harness.mock.failNext(1, .internal)
            let sending = Task { try await harness.send(MockFCMHarness.notification()) }
            // The harness's back-off: 20 ms after the first answer, 40 ms after the second.
            for backoff in [20, 40] {
                try await harness.clock.waitForSleepers(1)
                #expect(harness.clock.nextDeadline == harness.clock.now + .milliseconds(backoff))
                harness.clock.advance(by: .milliseconds(backoff))
            }
            let outcome = try await sending.value
            #expect(outcome == .delivered)
            #expect(harness.mock.sendRequestCount == 3)
            #expect(harness.mock.acceptedCount == 1)
        }
    }

    @Test(arguments: ["1", "HTTP-date"])
    func honoursRetryAfter(form: String) async throws {
        try await MockFCMHarness.with(retriesOnTestClock: true) { harness in
            let value: String
            if form == "HTTP-date" {
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = TimeZone(identifier: "GMT")
                formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
                value = formatter.string(from: Date().addingTimeInterval(2))
            } else {
                value = form
            }
            harness.mock.failNext(1, .unavailable(retryAfter: value))
            let start = harness.clock.now
            let realStart = ContinuousClock.now
            let sending = Task { try await harness.send(MockFCMHarness.notification()) }
            try await harness.clock.waitForSleepers(1)
            // Connecting and the first attempt take real time, which an HTTP-date counts too.
            let beforeBackOff = ContinuousClock.now - realStart
            harness.clock.advance(to: try #require(harness.clock.nextDeadline))
            let outcome = try await sending.value
            #expect(outcome == .delivered)
            // The back-off alone would be 20 ms; the provider asked for about a second or more.
            #expect(beforeBackOff + (harness.clock.now - start) >= .milliseconds(900))
        }
    }

    @Test func quotaExceededWithoutRetryAfterFailsWhenItsMinuteFloorPassesTheDeadline() async throws {
        try await MockFCMHarness.with(configure: { $0.deadline = .seconds(30) }, retriesOnTestClock: true) { harness in
            harness.mock.failNext(1, .quotaExceeded(retryAfter: nil))
            let finished = Mutex(false)
            let sending = Task {
                defer { finished.withLock { $0 = true } }
                return try await harness.send(MockFCMHarness.notification())
            }
            // On the test clock a back-off would wait forever: the send must end without one.
            // The attempt before it crosses a TLS handshake, an OAuth exchange and HTTP/2 in real
            // time: a full suite on two slow cores once made that take more than the default 30 s
            // (tests of 3 s took 40 then), so this wait is longer; a passing run never waits it out.
            try await waitUntil("the send ends or starts a back-off", within: .seconds(120), observing: { harness.clock.sleepers }) { sleepers in
                sleepers > 0 || finished.withLock { $0 }
            }
            #expect(harness.clock.sleepers == 0, "it waits out a back-off it cannot finish by the deadline")
            harness.clock.advance(by: .seconds(3600))
            let outcome = try await sending.value
            // Google's 60 s floor is past the 30 s deadline, so the push fails now instead of
            // hammering FCM or waiting out a deadline it cannot meet.
            guard case .failed(let reason) = outcome else {
                Issue.record("expected failed, got \(outcome)")
                return
            }
            #expect(reason.code == .deadlineExceeded)
            #expect(reason.detail.contains("deadline exceeded"))
            #expect(reason.detail.contains("QUOTA_EXCEEDED"))
            #expect(harness.mock.sendRequestCount == 1)
        }
    }

    @Test func bareUnauthenticatedRefreshesTheTokenOnce() async throws {
        try await MockFCMHarness.with { harness in
            try #expect(await harness.send(MockFCMHarness.notification()) == .delivered)
            harness.mock.revokeAccessTokens()
            try #expect(await harness.send(MockFCMHarness.notification()) == .delivered)
            #expect(harness.mock.accessTokensIssued == 2)
            #expect(harness.mock.sendRequestCount == 3)
        }
    }

    @Test func refreshesAtEightyPercentOfTheTokenLifetime() async throws {
        try await MockFCMHarness.with { harness in
            // 80 s, renewed after 64 s on the token manager's clock: the second send at 67 s
            // comes 13 s before expiry. The mock expires tokens in real time, which a loaded
            // machine does not spend 80 s of between two sends.
            harness.mock.setAccessTokenLifetime(seconds: 80)
            try #expect(await harness.send(MockFCMHarness.notification()) == .delivered)
            harness.clock.advance(by: .seconds(67))
            try #expect(await harness.send(MockFCMHarness.notification()) == .delivered)
            #expect(harness.mock.accessTokensIssued == 2)
            // No send was refused on the way: the token was renewed before it expired.
            #expect(harness.mock.sendRequestCount == 2)
        }
    }

    @Test func aRefusedGrantFailsAtOnce() async throws {
        let stranger = try TestServiceAccount(projectID: "herald-fcm", key: .fresh)
        try await MockFCMHarness.with(signingAccount: stranger) { harness in
            let outcome = try await harness.send(MockFCMHarness.notification())
            guard case .failed(let reason) = outcome else {
                Issue.record("expected failed, got \(outcome)")
                return
            }
            #expect(reason.detail.contains("400"))
            #expect(reason.detail.contains("invalid_grant"))
            #expect(harness.mock.sendRequestCount == 0)
            #expect(harness.mock.tokenRequestCount == 1)
        }
    }

    @Test func refusesWhatFCMWouldRefuseBeforeSending() async throws {
        try await MockFCMHarness.with { harness in
            let numeric = try await harness.send(MockFCMHarness.notification(payload: #"{"data":{"count":3}}"#))
            #expect(numeric == .rejected(reason: "INVALID_ARGUMENT"))
            let badToken = try await harness.send(MockFCMHarness.notification(token: "not a token!"))
            #expect(badToken == .rejected(reason: "INVALID_ARGUMENT"))
            #expect(harness.mock.sendRequestCount == 0)
        }
    }

    @Test func topicTargetsGoToTheTopic() async throws {
        try await MockFCMHarness.with { harness in
            let push = PushNotification(
                id: UUID().uuidString.lowercased(),
                device: Device(platform: .fcm, token: "", topic: "news"),
                payload: Array(#"{"notification":{"title":"t","body":"b"}}"#.utf8)
            )
            try #expect(await harness.send(push) == .delivered)
            #expect(harness.mock.accepted.first?.target == .topic("news"))
        }
    }
}
