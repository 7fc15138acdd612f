/// A condition a test waited for that never held.
public struct WaitTimedOut: Error, CustomStringConvertible {
    /// What the test waited for, in its words.
    public let expectation: String
    /// The last value the test observed before it gave up.
    public let lastObserved: String
    /// How long it waited.
    public let waited: Duration

    public init(expectation: String, lastObserved: String, waited: Duration) {
        self.expectation = expectation
        self.lastObserved = lastObserved
        self.waited = waited
    }

    public var description: String {
        "never happened within \(self.waited): \(self.expectation) (last observed: \(self.lastObserved))"
    }
}

/// Polls `observe` every `interval` until `done` holds for what it returns, and returns that
/// value; throws `WaitTimedOut` naming `expectation` and the last observed value once `limit`
/// (scaled by `TestTime`) passes.
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
    let clock = ContinuousClock()
    let start = clock.now
    let deadline = start + TestTime.bound(limit)
    while true {
        let value = try await observe()
        if try await done(value) { return value }
        guard clock.now < deadline else {
            throw WaitTimedOut(expectation: expectation(), lastObserved: String(describing: value), waited: clock.now - start)
        }
        try await Task.sleep(for: interval)
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
