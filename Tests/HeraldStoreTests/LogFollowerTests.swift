import Testing

@testable import HeraldStore

@Suite struct LogFollowerTests {
    @Test func retryDelayDoublesFromATenthOfASecondUpToThirtySeconds() {
        #expect(LogFollower.retryDelay(afterFailures: 1) == .milliseconds(100))
        #expect(LogFollower.retryDelay(afterFailures: 2) == .milliseconds(200))
        #expect(LogFollower.retryDelay(afterFailures: 5) == .milliseconds(1_600))
        #expect(LogFollower.retryDelay(afterFailures: 10) == .seconds(30))
        #expect(LogFollower.retryDelay(afterFailures: 1_000) == .seconds(30))
    }
}
