public import CoreMetrics
public import HeraldCore
import Metrics
import NIOConcurrencyHelpers

/// The delivery pool's metrics, built from an injected factory. Label values come from closed
/// sets: provider and app names from configuration, results from `DeliveryOutcome`, reasons from
/// `DeliveryFailure.Code`.
public final class DeliveryMetrics: Sendable {
    public static let pushes = "herald_delivery_pushes_total"
    public static let latency = "herald_delivery_latency_seconds"
    public static let queueDepth = "herald_delivery_queue_depth"
    public static let openConnections = "herald_delivery_open_connections"
    public static let tokenRefreshes = "herald_delivery_token_refreshes_total"
    public static let sharedTokenFallbacks = "herald_delivery_shared_token_fallbacks_total"
    public static let overloaded = "herald_delivery_overloaded_total"
    public static let deviceRateLimited = "herald_delivery_device_rate_limited_total"
    /// Failed connection attempts since start by `reason` (`open_files` when the node ran out of
    /// file descriptors): a count, sampled from the endpoints at scrape time.
    public static let connectFailures = "herald_delivery_connect_failures"

    private let factory: any MetricsFactory
    private let counters = NIOLockedValueBox<[[String]: Counter]>([:])
    /// Every push records one of these; a key of four strings, not an array built per push.
    private struct PushKey: Hashable {
        var provider: String
        var app: String
        var result: String
        var reason: String
    }
    private let pushCounters = NIOLockedValueBox<[PushKey: Counter]>([:])
    private let timers = NIOLockedValueBox<[String: Metrics.Timer]>([:])
    /// The last minutes of the same outcomes, for the status page.
    public let recent: RecentDeliveries

    public init(factory: any MetricsFactory, recent: RecentDeliveries = RecentDeliveries()) {
        self.factory = factory
        self.recent = recent
    }

    /// One finished push: its result, reason and how long it took over all attempts.
    public func record(provider: String, app: String, outcome: DeliveryOutcome, duration: Duration) {
        self.count(provider: provider, app: app, outcome: outcome)
        self.timer(provider: provider).record(duration: duration)
        self.recent.record(app: app, provider: provider, outcome: outcome)
    }

    /// The finished pushes of one provider's batch, as `record` for each: the delivered ones
    /// (most) counted with one lookup of their counter and of the recent counts, not one each.
    public func record(provider: String, app: String, ended: [(outcome: DeliveryOutcome, duration: Duration)]) {
        var delivered = 0
        for (outcome, duration) in ended {
            if outcome == .delivered {
                delivered += 1
            } else {
                self.record(provider: provider, app: app, outcome: outcome, duration: duration)
            }
        }
        guard delivered > 0 else { return }
        self.count(provider: provider, app: app, outcome: .delivered, by: delivered)
        let timer = self.timer(provider: provider)
        for (outcome, duration) in ended where outcome == .delivered { timer.record(duration: duration) }
        self.recent.record(app: app, provider: provider, outcome: .delivered, count: delivered)
    }

    private func timer(provider: String) -> Metrics.Timer {
        self.timers.withLockedValue { timers in
            if let timer = timers[provider] { return timer }
            let timer = Metrics.Timer(label: Self.latency, dimensions: [("provider", provider)], preferredDisplayUnit: .seconds, factory: self.factory)
            timers[provider] = timer
            return timer
        }
    }

    /// A push that ended before any provider (no such app, no credentials for its platform, the
    /// device's rate limit): counted under provider `none`, and not timed.
    public func recordSettled(app: String, outcome: DeliveryOutcome) {
        self.count(provider: "none", app: app, outcome: outcome)
    }

    private func count(provider: String, app: String, outcome: DeliveryOutcome, by amount: Int = 1) {
        let key = PushKey(provider: provider, app: app, result: outcome.result, reason: Self.reasonLabel(outcome))
        let counter = self.pushCounters.withLockedValue { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(
                label: Self.pushes,
                dimensions: [("provider", key.provider), ("app", key.app), ("result", key.result), ("reason", key.reason)],
                factory: self.factory
            )
            counters[key] = counter
            return counter
        }
        counter.increment(by: amount)
    }

    public func recordOverloaded(provider: String, app: String) {
        self.counter(Self.overloaded, ["provider": provider, "app": app]).increment()
        self.recent.recordNotAdmitted(app: app, provider: provider)
    }

    public func recordDeviceRateLimited(app: String) {
        self.counter(Self.deviceRateLimited, ["app": app]).increment()
    }

    public func recordTokenRefresh(provider: String, app: String) {
        self.counter(Self.tokenRefreshes, ["provider": provider, "app": app]).increment()
    }

    /// A node of a cluster could not read or store the shared provider token and used one of
    /// its own.
    public func recordSharedTokenFallback(provider: String, app: String) {
        self.counter(Self.sharedTokenFallbacks, ["provider": provider, "app": app]).increment()
    }

    /// Gauges sampled at scrape time from the endpoints.
    public func connectFailures(provider: String, app: String, reason: String) -> Gauge {
        Gauge(label: Self.connectFailures, dimensions: [("provider", provider), ("app", app), ("reason", reason)], factory: self.factory)
    }

    public func gauge(_ label: String, provider: String, app: String) -> Gauge {
        Gauge(label: label, dimensions: [("provider", provider), ("app", app)], factory: self.factory)
    }

    private func counter(_ label: String, _ dimensions: KeyValuePairs<String, String>) -> Counter {
        let pairs = dimensions.map { ($0.key, $0.value) }
        let key = [label] + pairs.flatMap { [$0.0, $0.1] }
        return self.counters.withLockedValue { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(label: label, dimensions: pairs, factory: self.factory)
            counters[key] = counter
            return counter
        }
    }

    /// The failure's code (a closed set: documented provider reasons, `other`, Herald's own), or
    /// `delivered`.
    static func reasonLabel(_ outcome: DeliveryOutcome) -> String {
        outcome.failure?.code.rawValue ?? "delivered"
    }
}
