import Foundation
import HeraldCore
import HeraldTestTraits
import HeraldTesting
import Logging
import Synchronization
import Testing

@testable import HeraldDelivery

/// The endpoint actor end to end against the strict mock: retries, deadlines, GOAWAY, tokens, overload.
@Suite struct APNSProviderTests {
    func endpoint(
        _ harness: MockAPNSHarness,
        clock: any Clock<Duration> = ContinuousClock(),
        configure: (inout APNSProvider.Configuration) -> Void = { _ in }
    ) -> APNSProvider {
        var configuration = APNSProvider.Configuration(host: "127.0.0.1", port: harness.mock.port, authority: "localhost", trustRootsPEM: [harness.mock.certificatePEM])
        configuration.backoff = Backoff(initial: .milliseconds(20), multiplier: 2, maximum: .milliseconds(200), jitter: 0)
        // Production's deadline: a first connection on a busy two-core CI machine can take
        // seconds, and tests that are about deadlines set their own.
        configuration.deadline = .seconds(60)
        configure(&configuration)
        return APNSProvider(configuration: configuration, tokens: harness.tokens, group: harness.group, logger: Logger(label: "test"), clock: clock)
    }

    /// Moves `clock` past each back-off in turn as the push starts waiting it out.
    func advance(_ clock: TestClock, through backoffs: [Duration]) async throws {
        for backoff in backoffs {
            try await clock.waitForSleepers(1)
            #expect(clock.nextDeadline == clock.now + backoff)
            clock.advance(by: backoff)
        }
    }

    @Test func deliveredOnFirstAttempt() async throws {
        try await MockAPNSHarness.with { harness in
            let endpoint = endpoint(harness)
            let outcome1 = try await endpoint.send(MockAPNSHarness.notification())
            #expect(outcome1 == .delivered)
            #expect(harness.mock.accepted.count == 1)
            await endpoint.shutdown()
        }
    }

    @Test func serverErrorIsRetriedThenDelivered() async throws {
        try await MockAPNSHarness.with { harness in
            harness.mock.failNext(2, status: 500, reason: "InternalServerError")
            let clock = TestClock()
            let endpoint = endpoint(harness, clock: clock)
            let sending = Task { try await endpoint.send(MockAPNSHarness.notification()) }
            try await advance(clock, through: [.milliseconds(20), .milliseconds(40)])
            let outcome2 = try await sending.value
            #expect(outcome2 == .delivered)
            #expect(harness.mock.requestCount == 3)
            #expect(harness.mock.accepted.count == 1)
            await endpoint.shutdown()
        }
    }

    @Test func retryAfterIsHonoured() async throws {
        try await MockAPNSHarness.with { harness in
            harness.mock.failNext(1, status: 429, reason: "TooManyRequests", retryAfterSeconds: 1)
            let clock = TestClock()
            let endpoint = endpoint(harness, clock: clock)
            let start = clock.now
            let sending = Task { try await endpoint.send(MockAPNSHarness.notification()) }
            try await clock.waitForSleepers(1)
            clock.advance(to: try #require(clock.nextDeadline))
            let outcome3 = try await sending.value
            #expect(outcome3 == .delivered)
            #expect(clock.now - start >= .seconds(1))
            await endpoint.shutdown()
        }
    }

    /// A batch's first attempts leave together on the open connection; each request still ends
    /// as `send` would end it: delivered, dead, refused, retried after a server error, or sent
    /// through the full path when no stream was free.
    @Test func sendAllEndsEachRequestAsSendWould() async throws {
        try await MockAPNSHarness.with { harness in
            let endpoint = endpoint(harness)
            #expect(try await endpoint.send(MockAPNSHarness.notification()) == .delivered, "the connection is open")
            harness.mock.setMaxConcurrentStreams(4)
            let tokens = (0..<8).map { String(format: "%064x", 0xB0 + $0) }
            harness.mock.script(token: tokens[1], .unregistered(since: Date(timeIntervalSince1970: 1_700_000_000)))
            harness.mock.script(token: tokens[2], .notForTopic)
            harness.mock.failNext(1, status: 500, reason: "InternalServerError")
            var notifications = tokens.map { MockAPNSHarness.notification(token: $0) }
            notifications[3].device.token = "not hex"
            let results = await endpoint.send(all: notifications)
            let outcomes = try results.map { try $0.result.get() }
            #expect(outcomes.count == 8)
            #expect(outcomes[1].result == "dead_token")
            #expect(outcomes[2].failure?.detail == "DeviceTokenNotForTopic")
            #expect(outcomes[3].result == "dead_token", "a malformed token is BadDeviceToken before a request")
            for index in [0, 4, 5, 6, 7] {
                #expect(outcomes[index] == .delivered, "request \(index)")
            }
            let delivered = Set(harness.mock.accepted.map(\.token))
            #expect(delivered.isSuperset(of: [0, 4, 5, 6, 7].map { tokens[$0] }))
            #expect(harness.mock.requestCount == 1 + 7 + 1, "one retry after the server error, nothing for the malformed token")
            #expect(await endpoint.queueDepth == 0)
            await endpoint.shutdown()
        }
    }

    /// A push of a batch that waits out a back-off holds only its own place in the queue, and
    /// the others are counted out as they end.
    @Test func sendAllSettlesTheQueueDepthPerRequest() async throws {
        try await MockAPNSHarness.with { harness in
            let clock = TestClock()
            let endpoint = endpoint(harness, clock: clock)
            #expect(try await endpoint.send(MockAPNSHarness.notification()) == .delivered, "the connection is open")
            harness.mock.failNext(1, status: 429, reason: "TooManyRequests", retryAfterSeconds: 5)
            let notifications = (0..<6).map { MockAPNSHarness.notification(token: String(format: "%064x", 0xC0 + $0)) }
            let batch = Task { await endpoint.send(all: notifications) }
            try await clock.waitForSleepers(1)
            // The others settle as their answers are read, maybe just after the sleeper appears.
            try await waitUntil("five end and one waits for its retry", observing: { await endpoint.queueDepth }) { $0 == 1 }
            clock.advance(by: .seconds(5))
            let endings = await batch.value
            #expect(try endings.map { try $0.result.get() } == Array(repeating: .delivered, count: 6))
            #expect(await endpoint.queueDepth == 0)
            await endpoint.shutdown()
        }
    }

    @Test func shutdownReasonMovesTheRetryToAFreshConnection() async throws {
        try await MockAPNSHarness.with { harness in
            let endpoint = endpoint(harness)
            let first = try await endpoint.send(MockAPNSHarness.notification())
            #expect(first == .delivered)
            harness.mock.failNext(1, status: 503, reason: "Shutdown")
            let second = try await endpoint.send(MockAPNSHarness.notification())
            #expect(second == .delivered)
            let connections = harness.mock.accepted.map(\.connection)
            #expect(connections.count == 2)
            #expect(connections[0] != connections[1], "the retry must not reuse the connection APNs is shutting down")
            await endpoint.shutdown()
        }
    }

    @Test func permanentErrorsAreNotRetried() async throws {
        try await MockAPNSHarness.with { harness in
            let dead = String(repeating: "d4", count: 32)
            harness.mock.script(token: dead, .unregistered(since: Date()))
            let endpoint = endpoint(harness)
            let outcome4 = try await endpoint.send(MockAPNSHarness.notification(token: dead))
            #expect(outcome4 == .deadToken(reason: "Unregistered"))
            harness.mock.failNext(1, status: 400, reason: "BadTopic")
            let outcome5 = try await endpoint.send(MockAPNSHarness.notification())
            #expect(outcome5 == .failed(reason: "BadTopic"))
            #expect(harness.mock.requestCount == 2, "neither may be retried")
            await endpoint.shutdown()
        }
    }

    @Test func requestsAPNsWouldRefuseNeverLeave() async throws {
        try await MockAPNSHarness.with { harness in
            let endpoint = endpoint(harness)
            let huge = "{\"a\":\"" + String(repeating: "x", count: 5000) + "\"}"
            let outcome6 = try await endpoint.send(MockAPNSHarness.notification(payload: huge))
            #expect(outcome6 == .rejected(reason: "PayloadTooLarge"))
            #expect(harness.mock.requestCount == 0)
            await endpoint.shutdown()
        }
    }

    @Test func retriesStopAtTheAttemptLimit() async throws {
        try await MockAPNSHarness.with { harness in
            harness.mock.failNext(100, status: 503, reason: "ServiceUnavailable")
            let clock = TestClock()
            let endpoint = endpoint(harness, clock: clock) { $0.maximumAttempts = 3 }
            let sending = Task { try await endpoint.send(MockAPNSHarness.notification()) }
            // No back-off after the last attempt.
            try await advance(clock, through: [.milliseconds(20), .milliseconds(40)])
            let outcome = try await sending.value
            #expect(outcome == .failed(DeliveryFailure(.retriesExhausted, "gave up after 3 attempts: ServiceUnavailable")))
            #expect(harness.mock.requestCount == 3)
            await endpoint.shutdown()
        }
    }

    @Test func goAwayMidFlightLosesNothingAndSendsNothingTwice() async throws {
        try await MockAPNSHarness.with { harness in
            let endpoint = endpoint(harness)
            // Authenticate the connection first, so its stream limit is high.
            let outcome7 = try await endpoint.send(MockAPNSHarness.notification())
            #expect(outcome7 == .delivered)
            harness.mock.setLatency(.milliseconds(150))
            let outcomes = try await withThrowingTaskGroup(of: DeliveryOutcome.self) { group in
                for _ in 0..<40 {
                    group.addTask { try await endpoint.send(MockAPNSHarness.notification()) }
                }
                group.addTask {
                    // Some of the 40 are in flight at the mock when the GOAWAY comes.
                    try await waitUntil("pushes reach the mock", observing: { harness.mock.requestCount }) { $0 > 2 }
                    // APNs finishes the streams it accepted before it closes; a short grace on a busy
                    // machine would drop their answers and turn this into the at-least-once case.
                    harness.mock.sendGoAway(reason: "Shutdown", grace: TestTime.bound(.seconds(30)))
                    return .delivered
                }
                return try await group.reduce(into: [DeliveryOutcome]()) { $0.append($1) }
            }
            #expect(outcomes.count == 41)
            #expect(outcomes.allSatisfy { $0 == .delivered })
            let ids = harness.mock.accepted.map { $0.apnsID.lowercased() }
            #expect(ids.count == 41, "each notification accepted exactly once")
            #expect(Set(ids).count == ids.count)
            await endpoint.shutdown()
        }
    }

    @Test func tokenIsRefreshedAfterFiftyMinutesOnTheSameConnection() async throws {
        try await MockAPNSHarness.with { harness in
            let endpoint = endpoint(harness)
            let outcome8 = try await endpoint.send(MockAPNSHarness.notification())
            #expect(outcome8 == .delivered)
            harness.clock.advance(minutes: 51)
            let outcome9 = try await endpoint.send(MockAPNSHarness.notification())
            #expect(outcome9 == .delivered)
            #expect(await harness.tokens.mintCount == 2)
            #expect(Set(harness.mock.accepted.map(\.connection)).count == 1)
            await endpoint.shutdown()
        }
    }

    @Test func fullQueueAnswersOverloadedInsteadOfDropping() async throws {
        try await MockAPNSHarness.with { harness in
            // The first two are held at the mock while the other three try to get in; those are
            // answered at once, so the latency only has to outlast three calls.
            harness.mock.setLatency(TestTime.bound(.seconds(3)))
            let endpoint = endpoint(harness) { $0.queueLimit = 2 }
            @Sendable func send() async -> Result<DeliveryOutcome, AdmissionError> {
                do throws(AdmissionError) { return .success(try await endpoint.send(MockAPNSHarness.notification())) } catch { return .failure(error) }
            }
            let first = (Task { await send() }, Task { await send() })
            // Tasks of the shared pool, which the suite's busiest start-up can hold for most of
            // half a minute on two cores; the latency below outlasts the wait's end, not its start.
            try await waitUntil("the first two reach the mock", within: .seconds(120), observing: { harness.mock.requestCount }) { $0 == 2 }
            var results = [await send(), await send(), await send()]
            results += [await first.0.value, await first.1.value]
            let delivered = results.filter { if case .success(.delivered) = $0 { true } else { false } }.count
            let overloaded = results.filter { if case .failure(let error) = $0 { error.code == .overloaded } else { false } }.count
            #expect(delivered == 2)
            #expect(overloaded == 3)
            await endpoint.shutdown()
        }
    }

    @Test func unreachableEndpointFailsWithinTheDeadline() async throws {
        try await MockAPNSHarness.with { harness in
            let port = harness.mock.port
            try await harness.mock.shutdown()
            var configuration = APNSProvider.Configuration(host: "127.0.0.1", port: port, authority: "localhost", trustRootsPEM: [harness.mock.certificatePEM])
            configuration.deadline = .milliseconds(500)
            configuration.backoff = Backoff(initial: .milliseconds(50), jitter: 0)
            let clock = TestClock()
            let endpoint = APNSProvider(configuration: configuration, tokens: harness.tokens, group: harness.group, logger: Logger(label: "test"), clock: clock)
            let finished = Mutex(false)
            let sending = Task {
                defer { finished.withLock { $0 = true } }
                return try await endpoint.send(MockAPNSHarness.notification())
            }
            // Each connect back-off passes on the test clock as soon as it is taken; the real
            // bound only keeps a broken endpoint from hanging the test.
            try await clock.advancing(until: "the send gives up") { finished.withLock { $0 } }
            let outcome = try await sending.value
            guard case .failed(let reason) = outcome else {
                Issue.record("expected failure, got \(outcome)")
                return
            }
            #expect(reason.code == .deadlineExceeded)
            #expect(reason.detail.contains("connect"))
            #expect(clock.now.offset <= .milliseconds(500), "it gave up by its deadline on its own clock")
            await endpoint.shutdown()
        }
    }
}

@Suite(.loadHeavy) struct APNSProviderDropTests {
    /// The mock drops every connection three times while 300 notifications are in flight. Each
    /// notification must end in exactly one outcome, and each must reach the mock. A request whose
    /// answer was lost in a drop is sent again (at-least-once), so the mock may see it twice; only
    /// those can repeat.
    @Test func droppedConnectionsUnderLoadLoseNothing() async throws {
        try await MockAPNSHarness.with { harness in
            var configuration = APNSProvider.Configuration(host: "127.0.0.1", port: harness.mock.port, authority: "localhost", trustRootsPEM: [harness.mock.certificatePEM])
            configuration.backoff = Backoff(initial: .milliseconds(10), multiplier: 2, maximum: .milliseconds(100), jitter: 0.2)
            configuration.deadline = TestTime.bound(.seconds(60))
            configuration.maximumAttempts = 10
            let endpoint = APNSProvider(configuration: configuration, tokens: harness.tokens, group: harness.group, logger: Logger(label: "test"))
            harness.mock.setLatency(.milliseconds(20))
            let notifications = (0..<300).map { _ in MockAPNSHarness.notification() }
            let outcomes = try await withThrowingTaskGroup(of: (String, DeliveryOutcome)?.self) { group in
                for notification in notifications {
                    group.addTask { (notification.id, try await endpoint.send(notification)) }
                }
                group.addTask {
                    // Drops land while the 300 are under way: after every 60 requests.
                    for drop in 1...3 {
                        try await waitUntil("\(60 * drop) requests reach the mock", observing: { harness.mock.requestCount }) { $0 >= 60 * drop }
                        harness.mock.dropConnections()
                    }
                    return nil
                }
                return try await group.reduce(into: [String: [DeliveryOutcome]]()) { outcomes, result in
                    if let (id, outcome) = result { outcomes[id, default: []].append(outcome) }
                }
            }
            #expect(outcomes.count == 300)
            #expect(outcomes.values.allSatisfy { $0.count == 1 }, "exactly one outcome per notification")
            #expect(outcomes.values.allSatisfy { $0 == [.delivered] })
            let accepted = harness.mock.accepted.map { $0.apnsID.lowercased() }
            #expect(Set(accepted) == Set(notifications.map(\.id)), "every notification reached the mock")
            #expect(accepted.count >= 300)
            await endpoint.shutdown()
        }
    }
}
