public import CoreMetrics
public import HeraldCore
import Metrics
import NIOConcurrencyHelpers

/// The delivery pool's metrics, built from an injected factory. Label values come from closed
/// sets: provider and app names from configuration, results from `DeliveryOutcome`, reasons from
/// the provider's documented list (anything else is `other`).
public final class DeliveryMetrics: Sendable {
    public static let pushes = "herald_delivery_pushes_total"
    public static let latency = "herald_delivery_latency_seconds"
    public static let queueDepth = "herald_delivery_queue_depth"
    public static let openConnections = "herald_delivery_open_connections"
    public static let tokenRefreshes = "herald_delivery_token_refreshes_total"
    public static let overloaded = "herald_delivery_overloaded_total"

    private let factory: any MetricsFactory
    private let counters = NIOLockedValueBox<[[String]: Counter]>([:])
    private let timers = NIOLockedValueBox<[String: Metrics.Timer]>([:])

    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// One finished push: its result, reason and how long it took over all attempts.
    public func record(provider: String, app: String, outcome: DeliveryOutcome, duration: Duration) {
        let result: String
        switch outcome {
        case .delivered: result = "delivered"
        case .deadToken: result = "dead_token"
        case .rejected: result = "rejected"
        case .failed: result = "failed"
        }
        let reason = Self.reasonLabel(outcome)
        self.counter(Self.pushes, ["provider": provider, "app": app, "result": result, "reason": reason]).increment()
        let timer = self.timers.withLockedValue { timers in
            if let timer = timers[provider] { return timer }
            let timer = Metrics.Timer(label: Self.latency, dimensions: [("provider", provider)], preferredDisplayUnit: .seconds, factory: self.factory)
            timers[provider] = timer
            return timer
        }
        timer.record(duration: duration)
    }

    public func recordOverloaded(provider: String, app: String) {
        self.counter(Self.overloaded, ["provider": provider, "app": app]).increment()
    }

    public func recordTokenRefresh(provider: String, app: String) {
        self.counter(Self.tokenRefreshes, ["provider": provider, "app": app]).increment()
    }

    /// Gauges sampled at scrape time from the endpoints.
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

    static let knownReasons: Set<String> = [
        "BadCollapseId", "BadDeviceToken", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic",
        "DeviceTokenNotForTopic", "DuplicateHeaders", "IdleTimeout", "InvalidPushType", "MissingDeviceToken",
        "MissingTopic", "PayloadEmpty", "TopicDisallowed", "BadCertificate", "BadCertificateEnvironment",
        "ExpiredProviderToken", "Forbidden", "InvalidProviderToken", "MissingProviderToken", "UnrelatedKeyIdInToken",
        "BadEnvironmentKeyIdInToken", "BadPath", "MethodNotAllowed", "ExpiredToken", "Unregistered", "PayloadTooLarge",
        "TooManyProviderTokenUpdates", "TooManyRequests", "InternalServerError", "ServiceUnavailable", "Shutdown",
        "UNREGISTERED", "SENDER_ID_MISMATCH", "INVALID_ARGUMENT", "QUOTA_EXCEEDED", "UNAVAILABLE", "INTERNAL",
        "THIRD_PARTY_AUTH_ERROR", "UNSPECIFIED_ERROR",
    ]

    /// The provider reason when it is a documented one, `delivered`, or `other`; retry summaries
    /// ("gave up after 3 attempts: X") count under `retries_exhausted` or `deadline_exceeded`.
    static func reasonLabel(_ outcome: DeliveryOutcome) -> String {
        let reason = outcome.reason
        if reason == "delivered" || Self.knownReasons.contains(reason) { return reason }
        if reason.hasPrefix("gave up after") { return "retries_exhausted" }
        if reason.hasPrefix("deadline exceeded") { return "deadline_exceeded" }
        return "other"
    }
}
