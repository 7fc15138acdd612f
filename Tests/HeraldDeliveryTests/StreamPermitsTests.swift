import NIOCore
import HeraldTesting
import NIOEmbedded
import Synchronization
import Testing

@testable import HeraldDelivery

/// Stream permits as requests see them: `HTTP2ConnectionDriver`'s queue, its limit set by the
/// peer's SETTINGS, its deadlines on a testing event loop's clock.
@Suite struct StreamPermitsTests {
    final class Order: Sendable {
        let values = Mutex<[Int]>([])
    }

    /// Runs `body` with a connection whose peer allows `limit` streams (with `nil` it has not
    /// said yet, so none), then closes it and stops its loop.
    static func withPermits(
        limit: Int?,
        _ body: (HTTP2ConnectionDriver, NIOAsyncTestingEventLoop) async throws -> Void
    ) async throws {
        let loop = NIOAsyncTestingEventLoop()
        let permits = HTTP2ConnectionDriver(eventLoop: loop)
        if let limit { permits.settingsReceived(maxConcurrentStreams: limit) }
        func finish() async {
            // Completes the preface promise if SETTINGS never came (NIO traps on a dropped
            // promise). Completions from off the loop run as loop tasks: they must run before the
            // shutdown, which cancels tasks that reach the loop after it began.
            permits.closed(because: "test over")
            await loop.run()
            await loop.shutdownGracefully()
        }
        do {
            try await body(permits, loop)
        } catch {
            await finish()
            throw error
        }
        await finish()
    }

    @Test func permitsUpToTheLimitAreImmediate() async throws {
        try await Self.withPermits(limit: 2) { permits, _ in
            try await permits.acquire()
            try await permits.acquire()
            #expect(permits.openStreams == 2)
            permits.release()
            #expect(permits.openStreams == 1)
        }
    }

    @Test func waitersAreAdmittedInOrderAsPermitsFree() async throws {
        try await Self.withPermits(limit: 1) { permits, _ in
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
                    try await waitUntil("\(index + 1) waiters queue", observing: { permits.waiting }) { $0 == index + 1 }
                }
                permits.release()
                try await group.waitForAll()
            }
            #expect(order.values.withLock { $0 } == [0, 1, 2])
            #expect(permits.openStreams == 0)
        }
    }

    @Test func raisingTheLimitAdmitsWaitersAndLoweringItLetsOpenStreamsFinish() async throws {
        try await Self.withPermits(limit: nil) { permits, _ in
            let waiters = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<3 { group.addTask { try await permits.acquire() } }
                    try await group.waitForAll()
                }
            }
            // The waiters are tasks of the shared pool, which the suite's busiest start-up can
            // hold for most of half a minute on two cores: their queueing is what is tested, not
            // how soon the pool runs them.
            try await waitUntil("3 waiters queue", within: .seconds(120), observing: { permits.waiting }) { $0 == 3 }
            permits.settingsReceived(maxConcurrentStreams: 3)
            try await waiters.value
            #expect(permits.openStreams == 3)
            permits.settingsReceived(maxConcurrentStreams: 1)
            #expect(permits.openStreams == 3, "lowering never takes back open streams")
            permits.release()
            permits.release()
            let late = Task { try await permits.acquire() }
            try await waitUntil("a waiter queues", observing: { permits.waiting }) { $0 == 1 }
            permits.release()
            try await late.value
            #expect(permits.openStreams == 1)
        }
    }

    @Test func failureWakesEveryWaiterAndRefusesLaterOnes() async throws {
        try await Self.withPermits(limit: nil) { permits, _ in
            let waiter = Task { try await permits.acquire() }
            try await waitUntil("a waiter queues", observing: { permits.waiting }) { $0 == 1 }
            permits.retire(reason: "test")
            await #expect(throws: HTTP2ConnectionError(.goingAway, "")) { try await waiter.value }
            await #expect(throws: HTTP2ConnectionError(.goingAway, "")) { try await permits.acquire() }
        }
    }

    @Test func cancelledWaiterLeavesWithoutTakingAPermit() async throws {
        try await Self.withPermits(limit: nil) { permits, _ in
            let waiter = Task { try await permits.acquire() }
            try await waitUntil("a waiter queues", observing: { permits.waiting }) { $0 == 1 }
            waiter.cancel()
            await #expect(throws: CancellationError.self) { try await waiter.value }
            #expect(permits.waiting == 0)
            permits.settingsReceived(maxConcurrentStreams: 1)
            #expect(permits.openStreams == 0)
        }
    }

}

@Suite struct StreamPermitDeadlineTests {
    @Test func waiterPastItsDeadlineTimesOutAndLeavesTheQueue() async throws {
        try await StreamPermitsTests.withPermits(limit: nil) { permits, loop in
            let start = loop.now
            let waiter = Task { try await permits.acquire(deadline: start + .milliseconds(50)) }
            try await waitUntil("a waiter queues", observing: { permits.waiting }) { $0 == 1 }
            await loop.advanceTime(by: .milliseconds(49))
            #expect(permits.waiting == 1, "still waiting just before its deadline")
            await loop.advanceTime(to: start + .milliseconds(50))
            // The waiting task sets the timer right after it queued: the timer may reach the loop
            // after the clock moved, and then runs on the loop's next turn.
            try await waitUntil("the timed-out waiter leaves the queue", observing: { () async -> Int in
                await loop.run()
                return permits.waiting
            }) { $0 == 0 }
            await #expect(throws: HTTP2ConnectionError(.timedOut, "")) { try await waiter.value }
            #expect(loop.now - start >= .milliseconds(50))
            #expect(permits.waiting == 0)
            permits.settingsReceived(maxConcurrentStreams: 1)
            #expect(permits.openStreams == 0, "a timed-out waiter must not take the permit later")
        }
    }

    @Test func admittedWaiterIsNotFailedByItsTimer() async throws {
        try await StreamPermitsTests.withPermits(limit: nil) { permits, loop in
            let waiter = Task { try await permits.acquire(deadline: loop.now + .milliseconds(200)) }
            try await waitUntil("a waiter queues", observing: { permits.waiting }) { $0 == 1 }
            permits.settingsReceived(maxConcurrentStreams: 1)
            try await waiter.value
            await loop.advanceTime(by: .milliseconds(250))
            await loop.run()
            #expect(permits.openStreams == 1)
        }
    }
}
