import Synchronization

/// At most `perHour` silent pushes a device an hour, evenly refilled (a token bucket of
/// `perHour`), and at most one pending per device: a push for a device whose last one has not
/// been answered is coalesced into it, as the device would keep only the newest anyway.
///
/// Devices are known by 8 bytes of their key's hash, so a broadcast to a million devices keeps
/// a million small entries; past `capacity` the ones refilled are forgotten (the same as never
/// seen), then the least recently used half.
final class DeviceRateLimiter: Sendable {
    enum Decision: Equatable {
        case send
        case coalesced
        case throttled
    }

    private struct Bucket {
        var tokens: Double
        /// Seconds since the limiter's origin.
        var updated: Double
        var pending: Bool
    }

    let perHour: Int
    let capacity: Int
    private let elapsed: @Sendable () -> Duration
    private let buckets = Mutex([UInt64: Bucket]())

    init<C: Clock>(perHour: Int, capacity: Int = 4_000_000, clock: C) where C.Duration == Duration {
        let origin = clock.now
        self.perHour = perHour
        self.capacity = max(capacity, 2)
        self.elapsed = { origin.duration(to: clock.now) }
    }

    /// Decides whether `device` gets a push now; `.send` marks it pending until `finished`.
    func take(_ device: UInt64) -> Decision {
        self.take(CollectionOfOne(device))[0]
    }

    /// Decides for each of `devices` in turn, as `take` one at a time would, under one lock: a
    /// broadcast's batch pays one lock and one clock reading, not one a device.
    func take(_ devices: some Collection<UInt64>) -> [Decision] {
        let now = Double(self.elapsed().components.seconds)
        let burst = Double(self.perHour)
        let perSecond = burst / 3600
        return self.buckets.withLock { buckets in
            devices.map { device -> Decision in
                var bucket = buckets[device] ?? Bucket(tokens: burst, updated: now, pending: false)
                if bucket.pending { return .coalesced }
                if self.perHour > 0 {
                    bucket.tokens = min(burst, bucket.tokens + max(now - bucket.updated, 0) * perSecond)
                    bucket.updated = now
                    guard bucket.tokens >= 1 else {
                        buckets[device] = bucket
                        return .throttled
                    }
                    bucket.tokens -= 1
                }
                bucket.pending = true
                if buckets[device] == nil, buckets.count >= self.capacity {
                    Self.evict(&buckets, now: now, refill: burst / max(perSecond, 1e-9), capacity: self.capacity)
                }
                buckets[device] = bucket
                return .send
            }
        }
    }

    /// The device's push was answered: the next one is a new push, not a coalesced one.
    func finished(_ device: UInt64) {
        self.finished(CollectionOfOne(device))
    }

    /// `finished` for each of `devices`, under one lock.
    func finished(_ devices: some Sequence<UInt64>) {
        self.buckets.withLock { buckets in
            for device in devices {
                guard var bucket = buckets[device] else { continue }
                bucket.pending = false
                // Without a limit, nothing needs remembering once nothing is pending.
                if self.perHour == 0 { buckets[device] = nil } else { buckets[device] = bucket }
            }
        }
    }

    var count: Int { self.buckets.withLock { $0.count } }

    private static func evict(_ buckets: inout [UInt64: Bucket], now: Double, refill: Double, capacity: Int) {
        buckets = buckets.filter { $0.value.pending || now - $0.value.updated < refill }
        // Down to half whenever over three quarters, so one full scan buys many inserts.
        guard buckets.count >= capacity * 3 / 4 else { return }
        let idle = buckets.filter { !$0.value.pending }.sorted { $0.value.updated < $1.value.updated }
        for (device, _) in idle.prefix(max(buckets.count - capacity / 2, 0)) { buckets.removeValue(forKey: device) }
    }
}
