extension TestClock {
    /// Polls `observe` as `waitUntil` does, and whenever `done` does not hold yet moves the clock
    /// to the earliest deadline slept on: back-offs and pacing the node takes on this clock pass
    /// as soon as they are taken, however long this machine takes to reach them. Returns the value
    /// `done` held for; throws `WaitTimedOut` once `limit` (scaled) passes.
    @discardableResult
    public func advancing<Value>(
        until expectation: @autoclosure () -> String,
        within limit: Duration = .seconds(30),
        observing observe: () async throws -> Value,
        _ done: (Value) async throws -> Bool
    ) async throws -> Value {
        try await waitUntil(expectation(), within: limit, observing: observe) { value in
            if try await done(value) { return true }
            if let next = self.nextDeadline { self.advance(to: next) }
            return false
        }
    }

    /// `advancing(until:within:observing:_:)` for a condition.
    public func advancing(until expectation: @autoclosure () -> String, within limit: Duration = .seconds(30), _ condition: () async throws -> Bool) async throws {
        try await self.advancing(until: expectation(), within: limit, observing: condition) { $0 }
    }
}
