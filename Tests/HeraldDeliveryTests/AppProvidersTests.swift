import Crypto
import Foundation
import HeraldCore
import HeraldTesting
import Logging
import MetricsTestKit
import Synchronization
import Testing

@testable import HeraldDelivery

@Suite struct AppProvidersTests {
    final class RecordingHandler: DeadTokenHandler {
        let seen = Mutex<[(PushNotification, String)]>([])
        func tokenIsDead(_ notification: PushNotification, reason: String) async {
            self.seen.withLock { $0.append((notification, reason)) }
        }
    }

    func pool(_ harness: MockAPNSHarness, metrics: TestMetrics, handler: RecordingHandler, deviceLimiter: SenderRateLimiter? = nil) -> AppProviders {
        var configuration = APNSProvider.Configuration(host: "127.0.0.1", port: harness.mock.port, authority: "localhost", trustRootsPEM: [harness.mock.certificatePEM])
        configuration.backoff = Backoff(initial: .milliseconds(10), jitter: 0)
        let endpoint = APNSProvider(configuration: configuration, tokens: harness.tokens, group: harness.group, logger: Logger(label: "test"))
        return AppProviders(
            apps: [.init(id: "wallet", providers: [endpoint])],
            defaultApp: nil,
            metrics: DeliveryMetrics(factory: metrics),
            deadTokenHandlers: [handler],
            deviceLimiter: deviceLimiter
        )
    }

    /// A device past `delivery.device-rate-limit` fails at once with `TooManyRequests`, without a
    /// request; other devices are counted apart.
    @Test func aDevicePastItsRateLimitFailsAtOnce() async throws {
        try await MockAPNSHarness.with { harness in
            let metrics = TestMetrics()
            let limiter = SenderRateLimiter(perMinute: 2, clock: TestClock())
            let pool = pool(harness, metrics: metrics, handler: RecordingHandler(), deviceLimiter: limiter)
            let token = String(repeating: "a1", count: 32)
            #expect(try await pool.send(MockAPNSHarness.notification(token: token)) == .delivered)
            #expect(try await pool.send(MockAPNSHarness.notification(token: token)) == .delivered)
            let third = try await pool.send(MockAPNSHarness.notification(token: token))
            #expect(third.failure?.code == .tooManyRequests)
            #expect(try await pool.send(MockAPNSHarness.notification(token: String(repeating: "b2", count: 32))) == .delivered)
            #expect(harness.mock.requestCount == 3)
            #expect(try metrics.expectCounter(DeliveryMetrics.deviceRateLimited, [("app", "wallet")]).totalValue == 1)
            // Counted with every other push's outcome, under no provider.
            #expect(
                try metrics.expectCounter(DeliveryMetrics.pushes, [("provider", "none"), ("app", "wallet"), ("result", "failed"), ("reason", "TooManyRequests")]).totalValue == 1
            )
            await pool.shutdown()
        }
    }

    @Test func deliveredPushIsCountedUnderItsApp() async throws {
        try await MockAPNSHarness.with { harness in
            let metrics = TestMetrics()
            let pool = pool(harness, metrics: metrics, handler: RecordingHandler())
            let outcome = try await pool.send(MockAPNSHarness.notification())
            #expect(outcome == .delivered)
            let counter = try metrics.expectCounter(
                DeliveryMetrics.pushes,
                [("provider", "apns"), ("app", "wallet"), ("result", "delivered"), ("reason", "delivered")]
            )
            #expect(counter.totalValue == 1)
            #expect(try metrics.expectTimer(DeliveryMetrics.latency, [("provider", "apns")]).values.count == 1)
            await pool.shutdown()
        }
    }

    /// A batch's outcomes are counted as one push's are: the delivered together, each failure
    /// apart, every push timed.
    @Test func aBatchCountsEachOutcomeAndTimesEachPush() async throws {
        try await MockAPNSHarness.with { harness in
            let metrics = TestMetrics()
            let dead = String(repeating: "e5", count: 32)
            harness.mock.script(token: dead, .unregistered(since: Date()))
            let pool = pool(harness, metrics: metrics, handler: RecordingHandler())
            let tokens = [String(repeating: "a1", count: 32), dead, String(repeating: "b2", count: 32)]
            let results = await pool.send(all: tokens.map { MockAPNSHarness.notification(token: $0) })
            #expect(results.count == 3)
            let delivered = try metrics.expectCounter(
                DeliveryMetrics.pushes,
                [("provider", "apns"), ("app", "wallet"), ("result", "delivered"), ("reason", "delivered")]
            )
            #expect(delivered.totalValue == 2)
            let unregistered = try metrics.expectCounter(
                DeliveryMetrics.pushes,
                [("provider", "apns"), ("app", "wallet"), ("result", "dead_token"), ("reason", "Unregistered")]
            )
            #expect(unregistered.totalValue == 1)
            #expect(try metrics.expectTimer(DeliveryMetrics.latency, [("provider", "apns")]).values.count == 3)
            let recent = try #require(pool.metrics.recent.snapshot().first)
            #expect(recent.minutes.last?.counts.delivered == 2)
            #expect(recent.minutes.last?.counts.deadToken == 1)
            await pool.shutdown()
        }
    }

    @Test func deadTokenReachesTheHandlersWithItsRegistration() async throws {
        try await MockAPNSHarness.with { harness in
            let token = String(repeating: "e5", count: 32)
            harness.mock.script(token: token, .unregistered(since: Date()))
            let metrics = TestMetrics()
            let handler = RecordingHandler()
            let pool = pool(harness, metrics: metrics, handler: handler)
            var notification = MockAPNSHarness.notification(token: token)
            let key = try RegistrationKey(scope: RegistrationScope(1, name: "test"), subject: [1, 2, 3], installationID: "i")
            notification.registration = key
            let outcome = try await pool.send(notification)
            #expect(outcome == .deadToken(reason: "Unregistered"))
            let seen = handler.seen.withLock { $0 }
            #expect(seen.count == 1)
            #expect(seen.first?.0.registration == key)
            #expect(seen.first?.1 == "Unregistered")
            #expect(
                try metrics.expectCounter(DeliveryMetrics.pushes, [("provider", "apns"), ("app", "wallet"), ("result", "dead_token"), ("reason", "Unregistered")]).totalValue == 1
            )
            await pool.shutdown()
        }
    }

    @Test func unknownAppIsRejectedWithoutSending() async throws {
        try await MockAPNSHarness.with { harness in
            let metrics = TestMetrics()
            let pool = pool(harness, metrics: metrics, handler: RecordingHandler())
            var notification = MockAPNSHarness.notification()
            notification.device.app = "chat"
            let outcome = try await pool.send(notification)
            #expect(outcome == .rejected(DeliveryFailure(.unknownApp, "UnknownApp")))
            #expect(harness.mock.requestCount == 0)
            // The client's app name is no label: every unknown app is `unknown`.
            #expect(
                try metrics.expectCounter(DeliveryMetrics.pushes, [("provider", "none"), ("app", "unknown"), ("result", "rejected"), ("reason", "unknown_app")]).totalValue == 1
            )
            await pool.shutdown()
        }
    }

    @Test func singleAppIsTheDefault() async throws {
        try await MockAPNSHarness.with { harness in
            let pool = pool(harness, metrics: TestMetrics(), handler: RecordingHandler())
            #expect(pool.defaultApp == "wallet")
            await pool.shutdown()
        }
    }

    @Test func reasonLabelsAreAClosedSet() {
        #expect(DeliveryMetrics.reasonLabel(.failed(reason: "BadTopic")) == "BadTopic")
        #expect(DeliveryMetrics.reasonLabel(.failed(DeliveryFailure(.retriesExhausted, "gave up after 6 attempts: ServiceUnavailable"))) == "retries_exhausted")
        #expect(DeliveryMetrics.reasonLabel(.failed(DeliveryFailure(.deadlineExceeded, "deadline exceeded after 2 attempts: x"))) == "deadline_exceeded")
        #expect(DeliveryMetrics.reasonLabel(.failed(reason: "SomethingNovel \(UUID())")) == "other")
    }

    @Test func tokenRefreshesAreReported() async throws {
        let minted = Mutex(0)
        let manager = try APNSTokenManager(
            credentials: .init(keyID: "K", teamID: "T", privateKeyPEM: MockAPNSHarnessKeys.pem),
            onMint: { minted.withLock { $0 += 1 } }
        )
        _ = try await manager.token()
        _ = try await manager.token()
        #expect(minted.withLock { $0 } == 1)
    }
}

enum MockAPNSHarnessKeys {
    static let pem = P256.Signing.PrivateKey().pemRepresentation
}
