import Histogram
import Synchronization

/// Latencies (microseconds, HdrHistogram), outcomes by kind and completions per second of one
/// run, shared by every request task.
final class LoadRecorder: Sendable {
    private struct State {
        var histogram = Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
        var succeeded = 0
        var errors: [String: Int] = [:]
        var perSecond: [Int] = []
    }

    private let state = Mutex(State())
    let start: ContinuousClock.Instant
    /// Requests sent (or, open loop, due) so far; the next request's index.
    let sent = Atomic<Int>(0)
    /// Open loop: requests in flight.
    let inFlight = Atomic<Int>(0)

    init(start: ContinuousClock.Instant) {
        self.start = start
    }

    func record(latency: Duration, error: String?, at instant: ContinuousClock.Instant) {
        let micros = UInt64(max(latency.components.seconds * 1_000_000 + latency.components.attoseconds / 1_000_000_000_000, 0))
        let second = max(Int((instant - self.start).components.seconds), 0)
        self.state.withLock { state in
            _ = state.histogram.record(micros)
            if let error {
                state.errors[error, default: 0] += 1
            } else {
                state.succeeded += 1
                while state.perSecond.count <= second { state.perSecond.append(0) }
                state.perSecond[second] += 1
            }
        }
    }

    /// An error that is no request's answer (a connection that could not be opened, an arrival
    /// never sent): counted, kept out of the latencies.
    func count(error: String) {
        self.state.withLock { $0.errors[error, default: 0] += 1 }
    }

    func snapshot() -> (Histogram<UInt64>, Int, [String: Int], [Int]) {
        self.state.withLock { ($0.histogram, $0.succeeded, $0.errors, $0.perSecond) }
    }
}
