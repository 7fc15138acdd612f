/// Keeps a walk at no more than a rate, on the node's clock (a test clock in tests), without
/// making its owner generic over the clock.
struct Pacer: Sendable {
    private let elapsed: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        self.elapsed = { origin.duration(to: clock.now) }
        self.sleeper = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
    }

    /// Time since the pacer was made.
    var now: Duration { self.elapsed() }

    /// Whether one more item after `count` since `start` fits `perSecond` now.
    func isDue(sent count: Int, since start: Duration, perSecond: Int) -> Bool {
        self.elapsed() >= start + .seconds(Double(count) / Double(max(perSecond, 1)))
    }

    /// How many items since `start` fit `perSecond` by now, at least one more than `sent`
    /// once `isDue` holds.
    func due(since start: Duration, perSecond: Int) -> Int {
        Int(((self.elapsed() - start) / .seconds(1)) * Double(max(perSecond, 1))) + 1
    }

    /// Returns once `count` items since `start` fit `perSecond`; throws when cancelled.
    func wait(sent count: Int, since start: Duration, perSecond: Int) async throws {
        let due = start + .seconds(Double(count) / Double(max(perSecond, 1)))
        if self.elapsed() < due { try await self.sleeper(due) }
    }
}
