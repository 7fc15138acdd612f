/// Any clock that measures in `Duration`, behind one concrete type: the endpoint and the token
/// managers take an injected clock (a test clock in tests) without becoming generic, since their
/// names appear in public signatures (`APNSProvider(tokens: APNSTokenManager?)`) that must not
/// grow a type parameter.
///
/// An instant is the time since the clock was wrapped, so instants of two `DeliveryClock`s are
/// not comparable; each owner keeps its own.
struct DeliveryClock: Clock {
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: self.offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - self.offset }

        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        static func + (lhs: Instant, rhs: Duration) -> Instant { lhs.advanced(by: rhs) }
        static func - (lhs: Instant, rhs: Duration) -> Instant { lhs.advanced(by: .zero - rhs) }
        static func - (lhs: Instant, rhs: Instant) -> Duration { rhs.duration(to: lhs) }
    }

    private let elapsed: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration, Duration?) async throws -> Void
    let minimumResolution: Duration

    init<Wrapped: Clock>(_ clock: Wrapped) where Wrapped.Duration == Duration {
        let origin = clock.now
        self.elapsed = { origin.duration(to: clock.now) }
        self.sleeper = { offset, tolerance in
            try await clock.sleep(until: origin.advanced(by: offset), tolerance: tolerance)
        }
        self.minimumResolution = clock.minimumResolution
    }

    var now: Instant { Instant(offset: self.elapsed()) }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await self.sleeper(deadline.offset, tolerance)
    }
}
