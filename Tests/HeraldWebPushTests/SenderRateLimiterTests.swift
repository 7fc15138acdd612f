import HeraldDelivery
import HeraldTesting
import HeraldWebPush
import Testing

@Suite struct SenderRateLimiterTests {
    @Test func burstThenOnePerIntervalPerSubscription() {
        let clock = TestClock()
        let limiter = SenderRateLimiter(perMinute: 6, clock: clock)
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
        let limiter = SenderRateLimiter(perMinute: 0, clock: TestClock())
        for _ in 0..<1000 { #expect(limiter.take("a") == nil) }
    }

    @Test func memoryIsBounded() {
        let clock = TestClock()
        let limiter = SenderRateLimiter(perMinute: 60, capacity: 100, clock: clock)
        for index in 0..<1000 {
            #expect(limiter.take("s\(index)") == nil)
            if index % 10 == 0 { clock.advance(by: .seconds(1)) }
        }
        #expect(limiter.count <= 100)
    }

    @Test func refilledBucketsAreForgottenFirstAndThrottledOnesKept() {
        let clock = TestClock()
        let limiter = SenderRateLimiter(perMinute: 2, capacity: 10, clock: clock)
        for index in 0..<9 { #expect(limiter.take("old\(index)") == nil) }
        clock.advance(by: .seconds(61))
        #expect(limiter.take("hot") == nil)
        #expect(limiter.take("hot") == nil)
        #expect(limiter.take("hot") != nil)
        for index in 0..<5 { #expect(limiter.take("new\(index)") == nil) }
        #expect(limiter.count == 6, "the nine refilled buckets went, hot and the new ones stay")
        #expect(limiter.take("hot") != nil, "still throttled")
    }

    @Test func aCostTakesAsManyAndABigOneWaitsForAFullBucket() {
        let clock = TestClock()
        let limiter = SenderRateLimiter(perMinute: 60, clock: clock)
        #expect(limiter.take("client", cost: 50) == nil)
        #expect(limiter.take("client", cost: 20) == 10, "10 more tokens at one a second")
        #expect(limiter.take("client", cost: 10) == nil)
        clock.advance(by: .seconds(60))
        #expect(limiter.take("client", cost: 500) == nil, "a cost above the burst is taken from a full bucket")
        #expect(limiter.take("client") != nil, "and leaves it in debt")
    }
}
