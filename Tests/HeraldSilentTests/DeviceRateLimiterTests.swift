import HeraldTesting
import Testing

@testable import HeraldSilent

/// The per-device limit on the test clock: a burst of `perHour`, refilled evenly; one pending push
/// per device; bounded memory.
@Suite struct DeviceRateLimiterTests {
    @Test func aDeviceGetsItsHourlyBurstThenOneTokenEveryShareOfTheHour() {
        let clock = TestClock()
        let limiter = DeviceRateLimiter(perHour: 3, clock: clock)
        for _ in 0..<3 {
            #expect(limiter.take(1) == .send)
            limiter.finished(1)
        }
        #expect(limiter.take(1) == .throttled)
        #expect(limiter.take(2) == .send, "devices are counted apart")
        // At three an hour a token comes back every 20 minutes.
        clock.advance(by: .seconds(1199))
        #expect(limiter.take(1) == .throttled)
        clock.advance(by: .seconds(2))
        #expect(limiter.take(1) == .send)
        limiter.finished(1)
        #expect(limiter.take(1) == .throttled)
    }

    @Test func aPendingPushCoalescesLaterOnesWithoutSpendingTokens() {
        let limiter = DeviceRateLimiter(perHour: 2, clock: TestClock())
        #expect(limiter.take(7) == .send)
        #expect(limiter.take(7) == .coalesced)
        #expect(limiter.take(7) == .coalesced)
        limiter.finished(7)
        #expect(limiter.take(7) == .send, "the coalesced pushes took no token")
        limiter.finished(7)
        #expect(limiter.take(7) == .throttled)
        #expect(limiter.take(7) == .throttled, "a throttled push leaves nothing pending")
    }

    @Test func withoutALimitOnlyPendingDevicesAreRemembered() {
        let limiter = DeviceRateLimiter(perHour: 0, clock: TestClock())
        for device in UInt64(0)..<1000 {
            #expect(limiter.take(device) == .send)
            #expect(limiter.take(device) == .coalesced, "one pending push a device, even without a limit")
            limiter.finished(device)
        }
        #expect(limiter.count == 0)
        #expect(limiter.take(1) == .send)
        #expect(limiter.count == 1)
    }

    @Test func memoryIsBoundedAndPendingDevicesAreNeverForgotten() {
        let clock = TestClock()
        let limiter = DeviceRateLimiter(perHour: 3, capacity: 100, clock: clock)
        #expect(limiter.take(0) == .send)
        for device in UInt64(1)...1000 {
            #expect(limiter.take(device) == .send)
            limiter.finished(device)
            if device % 10 == 0 { clock.advance(by: .seconds(1)) }
        }
        #expect(limiter.count <= 100)
        #expect(limiter.take(0) == .coalesced, "the pending device outlived every eviction")
    }

    @Test func refilledDevicesAreForgottenBeforeThrottledOnes() {
        let clock = TestClock()
        let limiter = DeviceRateLimiter(perHour: 1, capacity: 10, clock: clock)
        for device in UInt64(0)..<9 {
            #expect(limiter.take(device) == .send)
            limiter.finished(device)
        }
        clock.advance(by: .seconds(3601))
        #expect(limiter.take(100) == .send)
        limiter.finished(100)
        #expect(limiter.take(100) == .throttled)
        // The eleventh device: the nine refilled ones go, the throttled one stays.
        #expect(limiter.take(200) == .send)
        #expect(limiter.count == 2)
        #expect(limiter.take(100) == .throttled, "still remembered, so still throttled")
    }

    @Test func aBatchIsDecidedAsOneDeviceAtATimeWouldBe() {
        let limiter = DeviceRateLimiter(perHour: 1, clock: TestClock())
        #expect(limiter.take([1, 2, 1]) == [.send, .send, .coalesced], "the batch's own earlier push is pending")
        limiter.finished([1, 2])
        #expect(limiter.take([1, 3, 2]) == [.throttled, .send, .throttled])
        limiter.finished([3])
        #expect(limiter.take(3) == .throttled, "finished in a batch, the token stays spent")
        #expect(limiter.take([UInt64]()) == [])
    }
}
