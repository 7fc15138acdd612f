public import Hummingbird

/// Counts requests and times them by route template, method and status. Built from an injected
/// factory, so tests and several nodes in one process each see their own numbers.
public struct HTTPMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    public static var requestsLabel: String { HTTPRequestMetrics.requestsLabel }
    public static var durationLabel: String { HTTPRequestMetrics.durationLabel }

    private let metrics: HTTPRequestMetrics

    public init(_ metrics: HTTPRequestMetrics) {
        self.metrics = metrics
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
        self.metrics.record(route: context.endpointPath ?? "NotFound", method: Self.methodLabel(request.method), status: status, since: start)
    }
}
