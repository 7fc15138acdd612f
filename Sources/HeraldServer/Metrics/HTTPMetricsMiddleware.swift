public import Hummingbird
public import CoreMetrics
import Metrics
import Synchronization

/// Counts requests and times them by route template, method and status. Built from an injected
/// factory, so tests and several nodes in one process each see their own numbers.
public struct HTTPMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    public static var requestsLabel: String { "herald_http_requests_total" }
    public static var durationLabel: String { "herald_http_request_duration_seconds" }

    private struct Key: Hashable {
        var route: String
        var method: String
        var status: Int
    }

    private final class Cache: Sendable {
        let metrics = Mutex<[Key: (Counter, Metrics.Timer)]>([:])
    }

    private let factory: any MetricsFactory
    private let cache = Cache()

    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            self.record(request, context: context, status: Int(response.status.code), since: start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            self.record(request, context: context, status: Int(status), since: start)
            throw error
        }
    }

    /// Standard methods by name, anything else as `other`: clients must not be able to mint
    /// label values.
    static func methodLabel(_ method: HTTPRequest.Method) -> String {
        switch method {
        case .get, .head, .post, .put, .delete, .patch, .options: method.rawValue
        default: "other"
        }
    }

    private func record(_ request: Request, context: Context, status: Int, since start: ContinuousClock.Instant) {
        // The route template, never the raw path: raw paths would be an unbounded label set.
        let key = Key(route: context.endpointPath ?? "NotFound", method: Self.methodLabel(request.method), status: status)
        let (counter, timer) = self.cache.metrics.withLock { metrics in
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
