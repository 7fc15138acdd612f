import Synchronization

/// A token bucket per sender (a subscription, a signing key, a client address, as a front door
/// names its senders): `perMinute` pushes a minute, in bursts of as many. Memory is bounded: past
/// `capacity` senders, those whose bucket has refilled (which is the same as never having
/// pushed) are forgotten, and if none has, the oldest half.
public final class SenderRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Duration
    }

    private struct State {
        var buckets: [String: Bucket] = [:]
    }

    public let perMinute: Int
    let capacity: Int
    /// Time since some fixed origin, from the node's clock.
    private let elapsed: @Sendable () -> Duration
    private let state = Mutex(State())

    public init<C: Clock>(perMinute: Int, capacity: Int = 100_000, clock: C) where C.Duration == Duration {
        let origin = clock.now
        self.perMinute = perMinute
        self.capacity = max(capacity, 2)
        self.elapsed = { origin.duration(to: clock.now) }
    }

    /// Takes `cost` pushes for `sender`; returns `nil` when allowed, else the seconds until they
    /// would be. A cost above the burst is taken from a full bucket, so a big request is not
    /// refused forever.
    public func take(_ sender: String, cost: Int = 1) -> Int? {
        guard self.perMinute > 0 else { return nil }
        let now = self.elapsed()
        let burst = Double(self.perMinute)
        let perSecond = burst / 60
        return self.state.withLock { state in
            var bucket = state.buckets[sender] ?? Bucket(tokens: burst, updated: now)
            let seconds = Double((now - bucket.updated).components.seconds) + Double((now - bucket.updated).components.attoseconds) * 1e-18
            bucket.tokens = min(burst, bucket.tokens + max(seconds, 0) * perSecond)
            bucket.updated = now
            let needed = min(Double(max(cost, 1)), burst)
            guard bucket.tokens >= needed else {
                state.buckets[sender] = bucket
                return max(1, Int(((needed - bucket.tokens) / perSecond).rounded(.up)))
            }
            bucket.tokens -= Double(max(cost, 1))
            if state.buckets[sender] == nil, state.buckets.count >= self.capacity {
                Self.evict(&state, now: now, capacity: self.capacity)
            }
            state.buckets[sender] = bucket
            return nil
        }
    }

    /// Senders remembered now.
    public var count: Int { self.state.withLock { $0.buckets.count } }

    /// Down to half the capacity at once, so senders chosen to keep the map full cost one pass
    /// per `capacity / 2` new senders, not one per sender.
    private static func evict(_ state: inout State, now: Duration, capacity: Int) {
        // Any bucket refills completely within a minute.
        state.buckets = state.buckets.filter { now - $0.value.updated < .seconds(60) }
        guard state.buckets.count > capacity / 2 else { return }
        let oldest = state.buckets.sorted { $0.value.updated < $1.value.updated }.prefix(state.buckets.count - capacity / 2)
        for (key, _) in oldest { state.buckets.removeValue(forKey: key) }
    }
}
