import HeraldTesting
import HeraldWebPush
import Testing

@Suite struct SubscriptionRateLimiterTests {
    @Test func burstThenOnePerIntervalPerSubscription() {
        let clock = TestClock()
        let limiter = SubscriptionRateLimiter(perMinute: 6, clock: clock)
        for _ in 0..<6 { #expect(limiter.take("a") == nil) }
        #expect(limiter.take("a") == 10, "one every 10 s at 6 a minute")
        #expect(limiter.take("b") == nil, "subscriptions are counted apart")
        clock.advance(by: .seconds(9))
        #expect(limiter.take("a") == 1)
        clock.advance(by: .seconds(1))
        #expect(limiter.take("a") == nil)
        #expect(limiter.take("a") != nil)
    }

    @Test func zeroIsNoLimit() {
        let limiter = SubscriptionRateLimiter(perMinute: 0, clock: TestClock())
        for _ in 0..<1000 { #expect(limiter.take("a") == nil) }
    }

    @Test func memoryIsBounded() {
        let clock = TestClock()
        let limiter = SubscriptionRateLimiter(perMinute: 60, capacity: 100, clock: clock)
        for index in 0..<1000 {
            #expect(limiter.take("s\(index)") == nil)
            if index % 10 == 0 { clock.advance(by: .seconds(1)) }
        }
        #expect(limiter.count <= 100)
    }

    @Test func refilledBucketsAreForgottenFirstAndThrottledOnesKept() {
        let clock = TestClock()
        let limiter = SubscriptionRateLimiter(perMinute: 2, capacity: 10, clock: clock)
        for index in 0..<9 { #expect(limiter.take("old\(index)") == nil) }
        clock.advance(by: .seconds(61))
        #expect(limiter.take("hot") == nil)
        #expect(limiter.take("hot") == nil)
        #expect(limiter.take("hot") != nil)
        for index in 0..<5 { #expect(limiter.take("new\(index)") == nil) }
        #expect(limiter.count == 6, "the nine refilled buckets went, hot and the new ones stay")
        #expect(limiter.take("hot") != nil, "still throttled")
    }
}
