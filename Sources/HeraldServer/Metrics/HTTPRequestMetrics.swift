public import CoreMetrics
import Metrics
import Synchronization

/// The request counter and duration timer of one listener, by route template, method and status;
/// shared by the router's middleware and the routes answered from the pipeline, so both count
/// into the same series.
public final class HTTPRequestMetrics: Sendable {
    public static var requestsLabel: String { "herald_http_requests_total" }
    public static var durationLabel: String { "herald_http_request_duration_seconds" }

    private struct Key: Hashable {
        var route: String
        var method: String
        var status: Int
    }

    private let factory: any MetricsFactory
    private let metrics = Mutex<[Key: (Counter, Metrics.Timer)]>([:])

    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// `route` is the route's template, never the raw path: raw paths would be an unbounded
    /// label set; `method` one of `methodLabel`'s.
    func record(route: String, method: String, status: Int, since start: ContinuousClock.Instant) {
        let key = Key(route: route, method: method, status: status)
        let (counter, timer) = self.metrics.withLock { metrics in
            if let existing = metrics[key] { return existing }
            let dimensions = [("route", key.route), ("method", key.method), ("status", String(key.status))]
            let created = (
                Counter(label: Self.requestsLabel, dimensions: dimensions, factory: self.factory),
                Metrics.Timer(label: Self.durationLabel, dimensions: dimensions, preferredDisplayUnit: .seconds, factory: self.factory)
            )
            metrics[key] = created
            return created
        }
        counter.increment()
        timer.record(duration: ContinuousClock.now - start)
    }
}
