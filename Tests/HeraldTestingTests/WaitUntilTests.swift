import HeraldTesting
import Synchronization
import Testing

@Suite struct WaitUntilTests {
    /// A clock on which every pause ends `stall` after its deadline, as on a machine whose
    /// threads are all busy with other work.
    final class StallingClock: Clock, Sendable {
        typealias Instant = ContinuousClock.Instant
        private let base = ContinuousClock.now
        private let elapsed = Mutex(Duration.zero)
        let stall: Duration

        init(stall: Duration) {
            self.stall = stall
        }

        var now: Instant { self.base + self.elapsed.withLock { $0 } }
        var minimumResolution: Duration { .nanoseconds(1) }

        func sleep(until deadline: Instant, tolerance: Duration?) async throws {
            self.elapsed.withLock { $0 = max($0, deadline - self.base) + self.stall }
            await Task.yield()
        }
    }

    @Test func pausesThatEndLateAreGivenBackUpToFourTimesTheLimit() async throws {
        let limit = Duration.seconds(5)
        let clock = StallingClock(stall: .seconds(1))
        let observations = Mutex(0)
        // Each turn takes a second of the clock: without the time given back the wait would end
        // after about five; the condition holds at the twelfth.
        let value = try await waitUntil("the twelfth look", within: limit, every: .milliseconds(10), on: clock, observing: {
            observations.withLock { $0 += 1; return $0 }
        }) { $0 == 12 }
        #expect(value == 12)

        let never = StallingClock(stall: .seconds(1))
        do {
            try await waitUntil("never", within: limit, every: .milliseconds(10), on: never, observing: { false }) { $0 }
            Issue.record("a condition that never holds ended the wait")
        } catch let timedOut as WaitTimedOut {
            let bound = TestTime.bound(limit)
            #expect(timedOut.waited >= bound * 4 - .seconds(2), "\(timedOut)")
            #expect(timedOut.waited <= bound * 4 + .seconds(2), "bounded however late the pauses end: \(timedOut)")
            #expect(timedOut.starved > bound, "\(timedOut)")
            #expect(timedOut.description.contains("starved of a thread"))
        }
    }

    @Test func pausesThatEndOnTimeKeepTheLimit() async throws {
        let clock = StallingClock(stall: .zero)
        do {
            try await waitUntil("never", within: .seconds(1), every: .milliseconds(100), on: clock, observing: { false }) { $0 }
            Issue.record("a condition that never holds ended the wait")
        } catch let timedOut as WaitTimedOut {
            #expect(timedOut.waited >= TestTime.bound(.seconds(1)))
            #expect(timedOut.waited < TestTime.bound(.seconds(1)) + .milliseconds(200), "\(timedOut)")
            #expect(timedOut.starved == .zero)
        }
    }
}
