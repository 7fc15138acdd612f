public import CoreMetrics

/// `herald_webpush_pushes_total{route, encoding, outcome}`: every relay push and how it ended.
public struct WebPushMetrics: Sendable {
    static let pushes = "herald_webpush_pushes_total"

    let factory: any MetricsFactory

    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    func record(route: String, encoding: String, outcome: RelayOutcome) {
        Counter(label: Self.pushes, dimensions: [("route", route), ("encoding", encoding), ("outcome", outcome.rawValue)], factory: self.factory)
            .increment()
    }
}
