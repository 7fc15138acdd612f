public import Foundation
public import HeraldCore
import Synchronization

/// The last minutes of deliveries of each app's providers, for the status page: how many pushes
/// ended each way in each minute, and the last one that did not deliver. Prometheus keeps the
/// history; this is what a person opening the page on a node without one wants to see.
public final class RecentDeliveries: Sendable {
    /// Minutes kept, the current one included.
    public static let minutes = 15

    /// Pushes that ended each way.
    public struct Counts: Sendable, Hashable, Codable {
        public var delivered = 0
        public var deadToken = 0
        public var rejected = 0
        public var failed = 0
        /// Refused by the provider's queue (full, shutting down).
        public var notAdmitted = 0

        public init() {}

        public var total: Int { self.delivered + self.deadToken + self.rejected + self.failed + self.notAdmitted }
    }

    /// The last push of a provider that did not deliver.
    public struct Failure: Sendable, Hashable {
        public var at: Date
        /// `dead_token`, `rejected`, `failed` or `not_admitted`.
        public var result: String
        /// The provider's reason or Herald's, as the metrics' `reason` label, and its detail.
        public var reason: String
    }

    /// One provider of one app.
    public struct Provider: Sendable {
        public var app: String
        public var provider: String
        /// Oldest first, one per minute, the current minute last; minutes without pushes count 0.
        public var minutes: [(start: Date, counts: Counts)]
        public var lastFailure: Failure?
    }

    private struct Key: Hashable {
        var app: String
        var provider: String
    }

    /// A ring of `minutes` buckets; a bucket belongs to the minute it was last written in.
    private struct Ring {
        var minute = [Int](repeating: .min, count: RecentDeliveries.minutes)
        var counts = [Counts](repeating: Counts(), count: RecentDeliveries.minutes)
        var lastFailure: Failure?

        mutating func add(at minute: Int, _ count: (inout Counts) -> Void) {
            let slot = minute % RecentDeliveries.minutes
            if self.minute[slot] != minute {
                self.minute[slot] = minute
                self.counts[slot] = Counts()
            }
            count(&self.counts[slot])
        }

        func counts(at minute: Int) -> Counts {
            let slot = minute % RecentDeliveries.minutes
            return self.minute[slot] == minute ? self.counts[slot] : Counts()
        }
    }

    private let rings = Mutex<[Key: Ring]>([:])
    private let now: @Sendable () -> Date

    /// `now` is the wall clock minutes are cut by (a fixed one in tests).
    public init(now: @escaping @Sendable () -> Date = Date.init) {
        self.now = now
    }

    /// A push the provider finished.
    public func record(app: String, provider: String, outcome: DeliveryOutcome, count: Int = 1) {
        self.add(app: app, provider: provider, failure: outcome.failure.map { ($0, outcome.result) }) { counts in
            switch outcome {
            case .delivered: counts.delivered += count
            case .deadToken: counts.deadToken += count
            case .rejected: counts.rejected += count
            case .failed: counts.failed += count
            }
        }
    }

    /// A push the provider's queue refused.
    public func recordNotAdmitted(app: String, provider: String) {
        self.add(app: app, provider: provider, failure: (DeliveryFailure(.overloaded, "the provider's queue was full"), "not_admitted")) { $0.notAdmitted += 1 }
    }

    private func add(app: String, provider: String, failure: (DeliveryFailure, String)?, _ count: (inout Counts) -> Void) {
        let now = self.now()
        let minute = Int(now.timeIntervalSince1970 / 60)
        let key = Key(app: app, provider: provider)
        self.rings.withLock { rings in
            rings[key, default: Ring()].add(at: minute, count)
            if let (failure, result) = failure {
                rings[key]?.lastFailure = Failure(at: now, result: result, reason: failure.description)
            }
        }
    }

    /// Every provider that has ended a push since start, by app then provider.
    public func snapshot() -> [Provider] {
        let minute = Int(self.now().timeIntervalSince1970 / 60)
        let rings = self.rings.withLock { $0 }
        return rings.sorted { ($0.key.app, $0.key.provider) < ($1.key.app, $1.key.provider) }.map { key, ring in
            let minutes = ((minute - Self.minutes + 1)...minute).map { minute in
                (start: Date(timeIntervalSince1970: TimeInterval(minute * 60)), counts: ring.counts(at: minute))
            }
            return Provider(app: key.app, provider: key.provider, minutes: minutes, lastFailure: ring.lastFailure)
        }
    }
}
