import Foundation
import HeraldCore
import HeraldDelivery
import HeraldTesting
import MetricsTestKit
import Testing

@testable import HeraldSilent

/// Silent pushes as Apple and Google want them, through the real providers to the strict mock
/// APNs and FCM, and the per-device limits in front of them.
@Suite struct SilentSenderTests {
    struct Setup {
        let peers: ProviderPeers
        let metrics: TestMetrics
        let deadTokens: RecordingDeadTokenHandler
        let sender: SilentSender

        func count(_ outcome: SilentSender.Outcome) throws -> Int64 {
            try self.metrics.expectCounter("herald_silent_pushes_total", [("service", "default"), ("outcome", outcome.rawValue)]).totalValue
        }
    }

    /// A provider's one back-off: a push answered 5xx waits it out on the test clock, pending
    /// until the test moves the clock.
    static let backoff: Duration = .seconds(1)

    /// A sender for app `toot` whose providers talk to the peers. The providers and the device
    /// limiter run on `clock`; each provider makes two attempts (a 5xx answered twice fails),
    /// backs off `backoff` between them, and admits one push at a time (a second is refused while
    /// one waits out its back-off).
    static func withSender(
        perHour: Int = 0,
        clock: TestClock = TestClock(),
        configure: (inout SilentConfiguration) -> Void = { _ in },
        _ body: (Setup) async throws -> Void
    ) async throws {
        let metrics = TestMetrics()
        let deadTokens = RecordingDeadTokenHandler()
        var configuration = SilentConfiguration()
        configuration.app = "toot"
        configure(&configuration)
        let endpoint: (inout ConnectionPool.Configuration) -> Void = { pool in
            pool.maximumAttempts = 2
            pool.backoff = Backoff(initial: Self.backoff, jitter: 0)
            pool.queueLimit = 1
        }
        try await ProviderPeers.with(clock: clock, metrics: metrics, deadTokenHandlers: [deadTokens], endpoint: endpoint) { peers in
            let sender = SilentSender(
                providers: peers.providers,
                configuration: configuration,
                limiter: DeviceRateLimiter(perHour: perHour, clock: clock),
                metrics: SilentMetrics(factory: metrics),
                wallClock: Fixtures.wallClock
            )
            try await body(Setup(peers: peers, metrics: metrics, deadTokens: deadTokens, sender: sender))
        }
    }

    /// The top-level fields of a message the mock FCM accepted.
    static func fields(of message: MockFCM.AcceptedMessage) throws -> Set<String> {
        let object = try #require(try JSONSerialization.jsonObject(with: message.message) as? [String: Any])
        return Set(object.keys)
    }

    static let ios = Fixtures.registration(deviceID: "ios", token: Fixtures.apnsToken(1))
    static let otherIOS = Fixtures.registration(deviceID: "ios-2", token: Fixtures.apnsToken(2))
    static let android = Fixtures.registration(deviceID: "and", platform: .fcm, token: Fixtures.fcmToken(1))

    @Test func silentPushesAreBackgroundPushesAndDataOnlyMessages() async throws {
        try await Self.withSender { setup in
            #expect(await setup.sender.send(to: Self.ios, service: "default") == .delivered)
            #expect(await setup.sender.send(to: Self.android, service: "default") == .delivered)
            let push = try #require(setup.peers.apns.accepted.first)
            #expect(push.token == Self.ios.device.token)
            #expect(push.topic == ProviderPeers.topic, "the app's topic: the device names none")
            #expect(push.pushType == "background")
            #expect(push.priority == "5", "APNs refuses priority 10 for background pushes")
            #expect(push.payload == Array(#"{"aps":{"content-available":1}}"#.utf8))
            #expect(push.collapseID == "herald-sync")
            #expect(push.expiration == "1700000900", "15 minutes from the wall clock")
            let message = try #require(setup.peers.fcm.accepted.first)
            #expect(message.target == .token(Self.android.device.token))
            #expect(message.data == ["sync": "1"])
            #expect(try Self.fields(of: message) == ["token", "data", "android"], "data only: no notification, no APNs block")
            #expect(message.androidPriority == "NORMAL")
            #expect(message.androidCollapseKey == "herald-sync")
            #expect(try setup.count(.delivered) == 2)
        }
    }

    @Test func configurationSetsFCMPriorityLifetimeAndCollapseKey() async throws {
        try await Self.withSender(configure: {
            $0.fcmPriority = .high
            $0.timeToLive = .zero
            $0.collapseKey = nil
        }) { setup in
            #expect(await setup.sender.send(to: Self.ios, service: "default") == .delivered)
            #expect(await setup.sender.send(to: Self.android, service: "default") == .delivered)
            let push = try #require(setup.peers.apns.accepted.first)
            let message = try #require(setup.peers.fcm.accepted.first)
            #expect(message.androidPriority == "HIGH")
            #expect(push.priority == "5", "background pushes stay at 5 whatever FCM's priority")
            #expect(push.expiration == "0", "a zero lifetime is now or never")
            #expect(message.androidTTL == "0s", "on FCM too")
            #expect(message.androidCollapseKey == nil)
            #expect(push.collapseID == nil)
        }
    }

    @Test func providerAnswersBecomeOutcomesAndDisabledRegistrationsAreNotSent() async throws {
        let clock = TestClock()
        try await Self.withSender(clock: clock) { setup in
            let apns = setup.peers.apns
            let sender = setup.sender
            var disabled = Self.ios
            disabled.enabled = false
            #expect(await sender.send(to: disabled, service: "default") == .unregistered)
            #expect(apns.requestCount == 0)

            // 410 Unregistered and FCM's UNREGISTERED: dead tokens, reported with their
            // registration so it is disabled.
            apns.script(token: Self.ios.device.token, .unregistered(since: Fixtures.now))
            #expect(await sender.send(to: Self.ios, service: "default") == .deadToken)
            apns.script(token: Self.ios.device.token, nil)
            setup.peers.fcm.script(token: Self.android.device.token, .unregistered)
            #expect(await sender.send(to: Self.android, service: "default") == .deadToken)
            let reports = setup.deadTokens.reports
            #expect(reports.map(\.notification.registration) == [Self.ios.key, Self.android.key])
            #expect(reports.map(\.reason) == ["Unregistered", "UNREGISTERED"])

            // Refused: not retried.
            apns.failNext(1, status: 413, reason: "PayloadTooLarge")
            #expect(await sender.send(to: Self.ios, service: "default") == .failed)

            // A 5xx on both attempts.
            apns.failNext(2, status: 500, reason: "InternalServerError")
            let retried = Task { await sender.send(to: Self.ios, service: "default") }
            try await clock.waitForSleepers(1)
            clock.advance(by: Self.backoff)
            #expect(await retried.value == .failed)

            // Not admitted: the queue holds another device's push, waiting out its back-off.
            apns.failNext(1, status: 500, reason: "InternalServerError")
            let held = Task { await sender.send(to: Self.otherIOS, service: "default") }
            try await clock.waitForSleepers(1)
            #expect(await sender.send(to: Self.ios, service: "default") == .failed)
            clock.advance(by: Self.backoff)
            #expect(await held.value == .delivered)

            #expect(await sender.send(to: Self.ios, service: "default") == .delivered)
            #expect(apns.requestCount == 7, "dead, refused, 5xx twice, the held push twice, delivered; none for the push not admitted")
            #expect(apns.accepted.map(\.token) == [Self.otherIOS.device.token, Self.ios.device.token])
            #expect(try setup.count(.unregistered) == 1)
            #expect(try setup.count(.deadToken) == 2)
            #expect(try setup.count(.failed) == 3)
            #expect(try setup.count(.delivered) == 2)
        }
    }

    @Test func aPendingPushCoalescesTheNextAndTheHourlyLimitThrottles() async throws {
        let clock = TestClock()
        try await Self.withSender(perHour: 2, clock: clock) { setup in
            // APNs answers the first push 500: it waits out its back-off on the clock, pending
            // meanwhile.
            setup.peers.apns.failNext(1, status: 500, reason: "InternalServerError")
            let sender = setup.sender
            let first = Task { await sender.send(to: Self.ios, service: "default") }
            try await clock.waitForSleepers(1)
            #expect(await sender.send(to: Self.ios, service: "default") == .coalesced)
            #expect(await sender.send(to: Self.android, service: "default") == .delivered, "another device is not held up")
            clock.advance(by: Self.backoff)
            #expect(await first.value == .delivered)
            // Answered: the next push is a new one, the device's second this hour, and the last.
            #expect(await sender.send(to: Self.ios, service: "default") == .delivered)
            #expect(await sender.send(to: Self.ios, service: "default") == .throttled)
            #expect(setup.peers.apns.accepted.count == 2)
            #expect(setup.peers.apns.requestCount == 3, "the held push's two attempts and the next push")
            #expect(try setup.count(.coalesced) == 1)
            #expect(try setup.count(.throttled) == 1)
        }
    }
}
