/// A condition a test waited for that never held.
public struct WaitTimedOut: Error, CustomStringConvertible {
    /// What the test waited for, in its words.
    public let expectation: String
    /// The last value the test observed before it gave up.
    public let lastObserved: String
    /// How long it waited.
    public let waited: Duration
    /// How much of that the waiter itself spent waiting for a thread, added to its limit.
    public let starved: Duration

    public init(expectation: String, lastObserved: String, waited: Duration, starved: Duration = .zero) {
        self.expectation = expectation
        self.lastObserved = lastObserved
        self.waited = waited
        self.starved = starved
    }

    public var description: String {
        let starved = self.starved > .zero ? ", \(self.starved) of it starved of a thread" : ""
        return "never happened within \(self.waited)\(starved): \(self.expectation) (last observed: \(self.lastObserved))"
    }
}

/// Polls `observe` every `interval` until `done` holds for what it returns, and returns that
/// value; throws `WaitTimedOut` naming `expectation` and the last observed value once `limit`
/// (scaled by `TestTime`) passes.
///
/// Time the waiter spends not running — its pause ending far later than asked, because every
/// thread of the pool was busy (a debug build's suite starting hundreds of tests on two cores
/// has stalled them all for 30 s) — is added to the limit, up to four times the limit: whatever
/// the test waits for was most likely queued for a thread just as long, and a wait that ends
/// right after such a stall would blame it for the machine.
///
/// This is the suite's only way to wait for something another task, process or server does:
/// a fixed pause guesses how fast this machine is, a wait does not.
@discardableResult
public func waitUntil<Value>(
    _ expectation: @autoclosure () -> String,
    within limit: Duration = .seconds(30),
    every interval: Duration = .milliseconds(10),
    observing observe: () async throws -> Value,
    _ done: (Value) async throws -> Bool
) async throws -> Value {
    try await waitUntil(expectation(), within: limit, every: interval, on: ContinuousClock(), observing: observe, done)
}

/// `waitUntil` on `clock`, so a test of the wait itself can make its pauses end late.
@discardableResult
public func waitUntil<Value, WaitClock: Clock<Duration>>(
    _ expectation: @autoclosure () -> String,
    within limit: Duration,
    every interval: Duration,
    on clock: WaitClock,
    observing observe: () async throws -> Value,
    _ done: (Value) async throws -> Bool
) async throws -> Value {
    let start = clock.now
    let bound = TestTime.bound(limit)
    let cap = start.advanced(by: bound * 4)
    var deadline = start.advanced(by: bound)
    var starved = Duration.zero
    while true {
        let value = try await observe()
        if try await done(value) { return value }
        guard clock.now < deadline else {
            throw WaitTimedOut(expectation: expectation(), lastObserved: String(describing: value), waited: start.duration(to: clock.now), starved: starved)
        }
        let asleep = clock.now
        try await clock.sleep(for: interval)
        let late = asleep.duration(to: clock.now) - interval
        if late > .milliseconds(250) {
            starved += late
            deadline = min(deadline.advanced(by: late), cap)
        }
    }
}

/// Polls `condition` every `interval` until it holds; throws `WaitTimedOut` naming
/// `expectation` once `limit` (scaled by `TestTime`) passes.
public func waitUntil(
    _ expectation: @autoclosure () -> String,
    within limit: Duration = .seconds(30),
    every interval: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async throws {
    try await waitUntil(expectation(), within: limit, every: interval, observing: condition) { $0 }
}
