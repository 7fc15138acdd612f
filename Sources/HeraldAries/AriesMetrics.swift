public import CoreMetrics

/// `herald_aries_messages_total{type, result}`, `herald_aries_notifications_total{result}` and
/// `herald_aries_rate_limited_total`.
public struct AriesMetrics: Sendable {
    let factory: any MetricsFactory

    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    func message(type: String, result: String) {
        Counter(label: "herald_aries_messages_total", dimensions: [("type", type), ("result", result)], factory: self.factory).increment()
    }

    func notified(result: String) {
        Counter(label: "herald_aries_notifications_total", dimensions: [("result", result)], factory: self.factory).increment()
    }

    func rateLimited() {
        Counter(label: "herald_aries_rate_limited_total", factory: self.factory).increment()
    }
}
