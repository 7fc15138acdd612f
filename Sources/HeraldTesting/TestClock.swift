import Synchronization

/// A clock that moves only when a test moves it: code that sleeps on it (a back-off, a token
/// renewal) waits until `advance` passes its deadline, so tests assert on time without spending
/// it. Copies share one time line.
public struct TestClock: Clock, Sendable {
    public struct Instant: InstantProtocol, CustomStringConvertible {
        /// Time since the clock was made.
        public var offset: Duration

        public init(offset: Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: self.offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - self.offset }
        public var description: String { "TestClock.Instant(\(self.offset))" }

        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        public static func + (lhs: Instant, rhs: Duration) -> Instant { lhs.advanced(by: rhs) }
        public static func - (lhs: Instant, rhs: Duration) -> Instant { lhs.advanced(by: .zero - rhs) }
        public static func - (lhs: Instant, rhs: Instant) -> Duration { rhs.duration(to: lhs) }
    }

    /// `waitForSleepers` gave up: the code under test never slept as often as expected.
    public struct SleepersTimeout: Error, CustomStringConvertible {
        public var expected: Int
        public var sleeping: Int
        public var description: String { "expected \(self.expected) sleepers on the test clock, \(self.sleeping) came" }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Watcher {
        var count: Int
        var continuation: CheckedContinuation<Void, any Error>
        var timeout: Task<Void, Never>?
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [UInt64: Sleeper] = [:]
        var watchers: [UInt64: Watcher] = [:]
        var nextID: UInt64 = 0

        mutating func makeID() -> UInt64 {
            self.nextID += 1
            return self.nextID
        }

        /// Watchers whose count of sleepers is reached, taken out.
        mutating func satisfiedWatchers() -> [Watcher] {
            let ready = self.watchers.filter { $0.value.count <= self.sleepers.count }
            for id in ready.keys { self.watchers.removeValue(forKey: id) }
            return Array(ready.values)
        }
    }

    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    private let shared = Shared()

    public init() {}

    public var now: Instant { self.shared.state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// Tasks sleeping on the clock now.
    public var sleepers: Int { self.shared.state.withLock { $0.sleepers.count } }
    /// The earliest deadline a sleeper waits for.
    public var nextDeadline: Instant? { self.shared.state.withLock { $0.sleepers.values.map(\.deadline).min() } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = self.shared.state.withLock { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (immediate, ready) = self.shared.state.withLock { state -> (Result<Void, any Error>?, [Watcher]) in
                    if Task.isCancelled { return (.failure(CancellationError()), []) }
                    if deadline <= state.now { return (.success(()), []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (nil, state.satisfiedWatchers())
                }
                if let immediate { continuation.resume(with: immediate) }
                for watcher in ready {
                    watcher.timeout?.cancel()
                    watcher.continuation.resume()
                }
            }
        } onCancel: {
            let sleeper = self.shared.state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration`, waking every sleeper whose deadline it passes, the
    /// earliest first.
    public func advance(by duration: Duration) {
        let target = self.now + duration
        self.advance(to: target)
    }

    /// Moves the clock to `instant` (never backwards), waking every sleeper whose deadline it
    /// reaches, the earliest first.
    public func advance(to instant: Instant) {
        let woken = self.shared.state.withLock { state -> [Sleeper] in
            guard instant > state.now else { return [] }
            state.now = instant
            let due = state.sleepers.filter { $0.value.deadline <= instant }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Returns once at least `count` tasks sleep on the clock; throws `SleepersTimeout` after
    /// `timeout` of real time (scaled by `TestTime`), so a test whose code never sleeps fails
    /// instead of hanging.
    public func waitForSleepers(_ count: Int = 1, timeout: Duration = .seconds(30)) async throws {
        let id = self.shared.state.withLock { $0.makeID() }
        let shared = self.shared
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let ready = shared.state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.watchers[id] = Watcher(count: count, continuation: continuation)
                return false
            }
            if ready {
                continuation.resume()
                return
            }
            let timer = Task {
                guard (try? await Task.sleep(for: TestTime.bound(timeout))) != nil else { return }
                let (watcher, sleeping) = shared.state.withLock { ($0.watchers.removeValue(forKey: id), $0.sleepers.count) }
                watcher?.continuation.resume(throwing: SleepersTimeout(expected: count, sleeping: sleeping))
            }
            // The watcher may have been woken while the timer was being made.
            let stillWaiting = shared.state.withLock { state -> Bool in
                guard state.watchers[id] != nil else { return false }
                state.watchers[id]?.timeout = timer
                return true
            }
            if !stillWaiting { timer.cancel() }
        }
    }
}
