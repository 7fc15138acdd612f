import Synchronization
import Testing

@testable import HeraldDelivery

@Suite struct StreamPermitsTests {
    final class Order: Sendable {
        let values = Mutex<[Int]>([])
    }

    @Test func permitsUpToTheLimitAreImmediate() async throws {
        let permits = StreamPermits(limit: 2)
        try await permits.acquire()
        try await permits.acquire()
        #expect(permits.inUse == 2)
        permits.release()
        #expect(permits.inUse == 1)
    }

    @Test func waitersAreAdmittedInOrderAsPermitsFree() async throws {
        let permits = StreamPermits(limit: 1)
        try await permits.acquire()
        let order = Order()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<3 {
                group.addTask {
                    try await permits.acquire()
                    order.values.withLock { $0.append(index) }
                    permits.release()
                }
                // Park each waiter before the next, so arrival order is known.
                try await Self.eventually { permits.waiting == index + 1 }
            }
            permits.release()
            try await group.waitForAll()
        }
        #expect(order.values.withLock { $0 } == [0, 1, 2])
        #expect(permits.inUse == 0)
    }

    @Test func raisingTheLimitAdmitsWaitersAndLoweringItLetsOpenStreamsFinish() async throws {
        let permits = StreamPermits(limit: 0)
        let waiters = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 { group.addTask { try await permits.acquire() } }
                try await group.waitForAll()
            }
        }
        try await Self.eventually { permits.waiting == 3 }
        permits.setLimit(3)
        try await waiters.value
        #expect(permits.inUse == 3)
        permits.setLimit(1)
        #expect(permits.inUse == 3, "lowering never takes back open streams")
        permits.release()
        permits.release()
        let late = Task { try await permits.acquire() }
        try await Self.eventually { permits.waiting == 1 }
        permits.release()
        try await late.value
        #expect(permits.inUse == 1)
    }

    @Test func failureWakesEveryWaiterAndRefusesLaterOnes() async throws {
        let permits = StreamPermits(limit: 0)
        let waiter = Task { try await permits.acquire() }
        try await Self.eventually { permits.waiting == 1 }
        permits.fail(HTTP2ConnectionError(.goingAway, "test"))
        await #expect(throws: HTTP2ConnectionError(.goingAway, "")) { try await waiter.value }
        await #expect(throws: HTTP2ConnectionError(.goingAway, "")) { try await permits.acquire() }
    }

    @Test func cancelledWaiterLeavesWithoutTakingAPermit() async throws {
        let permits = StreamPermits(limit: 0)
        let waiter = Task { try await permits.acquire() }
        try await Self.eventually { permits.waiting == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(permits.waiting == 0)
        permits.setLimit(1)
        #expect(permits.inUse == 0)
    }

    static func eventually(_ condition: () -> Bool) async throws {
        for _ in 0..<1000 where !condition() {
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(condition())
    }
}

@Suite struct StreamPermitDeadlineTests {
    @Test func waiterPastItsDeadlineTimesOutAndLeavesTheQueue() async throws {
        let permits = StreamPermits(limit: 0)
        let start = ContinuousClock.now
        await #expect(throws: HTTP2ConnectionError(.timedOut, "")) {
            try await permits.acquire(deadline: .now + .milliseconds(50))
        }
        #expect(ContinuousClock.now - start >= .milliseconds(50))
        #expect(permits.waiting == 0)
        permits.setLimit(1)
        #expect(permits.inUse == 0, "a timed-out waiter must not take the permit later")
    }

    @Test func admittedWaiterIsNotFailedByItsTimer() async throws {
        let permits = StreamPermits(limit: 0)
        let waiter = Task { try await permits.acquire(deadline: .now + .milliseconds(200)) }
        try await StreamPermitsTests.eventually { permits.waiting == 1 }
        permits.setLimit(1)
        try await waiter.value
        try await Task.sleep(for: .milliseconds(250))
        #expect(permits.inUse == 1)
    }
}
