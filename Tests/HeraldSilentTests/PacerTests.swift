import HeraldTesting
import Testing

@testable import HeraldSilent

/// A broadcast's pacing on the test clock: which item is due when, and waiting for it.
@Suite struct PacerTests {
    @Test func anItemIsDueOnceItsShareOfTheSecondHasPassedSinceTheStart() {
        let clock = TestClock()
        clock.advance(by: .seconds(5))
        let pacer = Pacer(clock)
        #expect(pacer.now == .zero, "time counts from the pacer's making")
        #expect(pacer.isDue(sent: 0, since: .zero, perSecond: 4))
        #expect(!pacer.isDue(sent: 1, since: .zero, perSecond: 4))
        clock.advance(by: .milliseconds(249))
        #expect(!pacer.isDue(sent: 1, since: .zero, perSecond: 4))
        clock.advance(by: .milliseconds(1))
        #expect(pacer.now == .milliseconds(250))
        #expect(pacer.isDue(sent: 1, since: .zero, perSecond: 4))
        #expect(!pacer.isDue(sent: 2, since: .zero, perSecond: 4))
        // A walk that started later counts from its own start.
        #expect(!pacer.isDue(sent: 1, since: .milliseconds(100), perSecond: 4))
        #expect(pacer.isDue(sent: 0, since: .milliseconds(250), perSecond: 4))
    }

    @Test(arguments: [0, -5])
    func aRateBelowOneIsOneASecond(perSecond: Int) {
        let clock = TestClock()
        let pacer = Pacer(clock)
        clock.advance(by: .milliseconds(999))
        #expect(!pacer.isDue(sent: 1, since: .zero, perSecond: perSecond))
        clock.advance(by: .milliseconds(1))
        #expect(pacer.isDue(sent: 1, since: .zero, perSecond: perSecond))
    }

    @Test func waitSleepsOnTheClockUntilTheItemIsDueAndEndsWhenCancelled() async throws {
        let clock = TestClock()
        let pacer = Pacer(clock)
        let waiting = Task { try await pacer.wait(sent: 3, since: .zero, perSecond: 2) }
        try await clock.waitForSleepers(1)
        #expect(clock.nextDeadline?.offset == Duration.milliseconds(1500), "three items at two a second: 1.5 s after the start")
        clock.advance(by: .milliseconds(1499))
        #expect(clock.sleepers == 1)
        clock.advance(by: .milliseconds(1))
        try await waiting.value
        #expect(clock.sleepers == 0)

        let cancelled = Task { try await pacer.wait(sent: 10, since: .zero, perSecond: 2) }
        try await clock.waitForSleepers(1)
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
    }
}
