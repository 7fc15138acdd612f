import HeraldTesting
import Synchronization
import Testing

@Suite struct TestClockTests {
    final class Woken: Sendable {
        let names = Mutex<[String]>([])
    }

    @Test func sleepersWakeWhenTheClockPassesTheirDeadlineEarliestFirst() async throws {
        let clock = TestClock()
        let woken = Woken()
        let late = Task {
            try await clock.sleep(for: .seconds(5))
            woken.names.withLock { $0.append("late") }
        }
        let early = Task {
            try await clock.sleep(for: .seconds(2))
            woken.names.withLock { $0.append("early") }
        }
        try await clock.waitForSleepers(2)
        #expect(clock.nextDeadline == clock.now + .seconds(2))
        clock.advance(by: .seconds(1))
        #expect(clock.sleepers == 2, "nobody's deadline passed")
        clock.advance(by: .seconds(1))
        try await early.value
        #expect(clock.sleepers == 1)
        clock.advance(by: .seconds(10))
        try await late.value
        #expect(woken.names.withLock { $0 } == ["early", "late"])
        #expect(clock.now.offset == .seconds(12))
    }

    @Test func aDeadlineAlreadyPassedDoesNotSleep() async throws {
        let clock = TestClock()
        clock.advance(by: .seconds(3))
        try await clock.sleep(until: clock.now - .seconds(1))
        #expect(clock.sleepers == 0)
    }

    @Test func aCancelledSleeperWakesAtOnceWithCancellation() async throws {
        let clock = TestClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        try await clock.waitForSleepers(1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleepers == 0)
    }

    @Test func waitingForSleepersThatNeverComeFailsInsteadOfHanging() async throws {
        let clock = TestClock()
        await #expect(throws: TestClock.SleepersTimeout.self) {
            try await clock.waitForSleepers(1, timeout: .milliseconds(10))
        }
    }

    @Test func theClockNeverMovesBackwards() {
        let clock = TestClock()
        clock.advance(by: .seconds(2))
        clock.advance(to: TestClock.Instant(offset: .seconds(1)))
        #expect(clock.now.offset == .seconds(2))
    }
}
