import HeraldCore
import HeraldDelivery
import HeraldTesting
import MetricsTestKit
import Testing

@testable import HeraldSilent

/// Silent pushes as Apple and Google want them, through a pool of scripted providers, and the
/// per-device limits in front of them.
@Suite struct SilentSenderTests {
    struct Setup {
        let apns = FakePushProvider(.apns)
        let fcm = FakePushProvider(.fcm)
        let metrics = TestMetrics()
        let sender: SilentSender

        init(perHour: Int = 0, clock: TestClock = TestClock(), _ configure: (inout SilentConfiguration) -> Void = { _ in }) {
            var configuration = SilentConfiguration()
            configuration.app = "toot"
            configure(&configuration)
            let pool = AppProviders(
                apps: [.init(id: "toot", providers: [self.apns, self.fcm])],
                defaultApp: nil,
                metrics: DeliveryMetrics(factory: self.metrics)
            )
            self.sender = SilentSender(
                pool: pool,
                configuration: configuration,
                limiter: DeviceRateLimiter(perHour: perHour, clock: clock),
                metrics: SilentMetrics(factory: self.metrics),
                wallClock: Fixtures.wallClock
            )
        }

        func count(_ outcome: SilentSender.Outcome) throws -> Int64 {
            try self.metrics.expectCounter("herald_silent_pushes_total", [("service", "default"), ("outcome", outcome.rawValue)]).totalValue
        }
    }

    static let ios = Fixtures.registration(deviceID: "ios", token: Fixtures.apnsToken(1))
    static let android = Fixtures.registration(deviceID: "and", platform: .fcm, token: Fixtures.fcmToken(1))

    @Test func silentPushesAreBackgroundPushesAndDataOnlyMessages() async throws {
        let setup = Setup()
        #expect(await setup.sender.send(to: Self.ios, service: "default") == .delivered)
        #expect(await setup.sender.send(to: Self.android, service: "default") == .delivered)
        let push = try #require(setup.apns.sent.first)
        #expect(push.device == Self.ios.device)
        #expect(push.registration == Self.ios.key, "so a dead token disables its registration")
        #expect(push.pushType == "background")
        #expect(push.priority == PushNotification.Priority.powerConsiderate, "APNs refuses priority 10 for background pushes")
        #expect(push.payload == Array(#"{"aps":{"content-available":1}}"#.utf8))
        #expect(push.collapseID == "herald-sync")
        #expect(push.expiration == Int64(1_700_000_900), "15 minutes from the wall clock")
        let message = try #require(setup.fcm.sent.first)
        #expect(message.registration == Self.android.key)
        #expect(message.payload == Array(#"{"data":{"sync":"1"}}"#.utf8))
        #expect(message.pushType == nil)
        #expect(message.priority == PushNotification.Priority.powerConsiderate)
        #expect(message.collapseID == "herald-sync")
        #expect(try setup.count(.delivered) == 2)
    }

    @Test func configurationSetsFCMPriorityLifetimeAndCollapseKey() async throws {
        let setup = Setup {
            $0.fcmPriority = .high
            $0.timeToLive = .zero
            $0.collapseKey = nil
        }
        _ = await setup.sender.send(to: Self.ios, service: "default")
        _ = await setup.sender.send(to: Self.android, service: "default")
        let push = try #require(setup.apns.sent.first)
        let message = try #require(setup.fcm.sent.first)
        #expect(message.priority == PushNotification.Priority.immediate)
        #expect(push.priority == PushNotification.Priority.powerConsiderate, "background pushes stay at 5 whatever FCM's priority")
        #expect(push.expiration == Int64(0), "a zero lifetime is now or never")
        #expect(message.collapseID == nil)
        #expect(push.collapseID == nil)
    }

    @Test func providerAnswersBecomeOutcomesAndDisabledRegistrationsAreNotSent() async throws {
        let setup = Setup()
        var disabled = Self.ios
        disabled.enabled = false
        #expect(await setup.sender.send(to: disabled, service: "default") == .unregistered)
        #expect(setup.apns.sent.isEmpty)
        let answers: [(FakePushProvider.Answer, SilentSender.Outcome)] = [
            (.outcome(.deadToken(reason: "Unregistered")), .deadToken),
            (.outcome(.rejected(reason: "PayloadTooLarge")), .failed),
            (.outcome(.failed(reason: "InternalServerError")), .failed),
            (.notAdmitted, .failed),
            (.outcome(.delivered), .delivered),
        ]
        for (answer, outcome) in answers {
            setup.apns.script(answer)
            #expect(await setup.sender.send(to: Self.ios, service: "default") == outcome)
        }
        #expect(setup.apns.sent.count == answers.count)
        #expect(try setup.count(.unregistered) == 1)
        #expect(try setup.count(.deadToken) == 1)
        #expect(try setup.count(.failed) == 3)
    }

    @Test func aPendingPushCoalescesTheNextAndTheHourlyLimitThrottles() async throws {
        let clock = TestClock()
        let setup = Setup(perHour: 2, clock: clock)
        // The first push waits on the clock for its answer: it stays pending meanwhile.
        setup.apns.script(.afterSleeping(clock, .delivered))
        let sender = setup.sender
        let first = Task { await sender.send(to: Self.ios, service: "default") }
        try await clock.waitForSleepers(1)
        #expect(await sender.send(to: Self.ios, service: "default") == .coalesced)
        #expect(await sender.send(to: Self.android, service: "default") == .delivered, "another device is not held up")
        clock.advance(by: .seconds(1))
        #expect(await first.value == .delivered)
        // Answered: the next push is a new one, the device's second this hour, and the last.
        setup.apns.script(.outcome(.delivered))
        #expect(await sender.send(to: Self.ios, service: "default") == .delivered)
        #expect(await sender.send(to: Self.ios, service: "default") == .throttled)
        #expect(setup.apns.sent.count == 2)
        #expect(try setup.count(.coalesced) == 1)
        #expect(try setup.count(.throttled) == 1)
    }
}
