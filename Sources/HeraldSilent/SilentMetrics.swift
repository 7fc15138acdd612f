public import CoreMetrics

/// `herald_silent_registrations_total{service, action}`, `herald_silent_pushes_total{service,
/// outcome}`, `herald_silent_broadcast_devices_total{service}`,
/// `herald_silent_broadcasts_refused_total{service}`, `herald_silent_broadcasts_running` and
/// `herald_silent_rate_limited_total{service}`.
public struct SilentMetrics: Sendable {
    let factory: any MetricsFactory

    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    func registered(service: String, action: String) {
        Counter(label: "herald_silent_registrations_total", dimensions: [("service", service), ("action", action)], factory: self.factory).increment()
    }

    func pushed(service: String, outcome: SilentSender.Outcome, count: Int) {
        Counter(label: "herald_silent_pushes_total", dimensions: [("service", service), ("outcome", outcome.rawValue)], factory: self.factory).increment(by: count)
    }

    func visited(service: String, count: Int) {
        Counter(label: "herald_silent_broadcast_devices_total", dimensions: [("service", service)], factory: self.factory).increment(by: count)
    }

    func refusedBroadcast(service: String) {
        Counter(label: "herald_silent_broadcasts_refused_total", dimensions: [("service", service)], factory: self.factory).increment()
    }

    func rateLimited(service: String) {
        Counter(label: "herald_silent_rate_limited_total", dimensions: [("service", service)], factory: self.factory).increment()
    }

    func running(broadcasts: Int) {
        Gauge(label: "herald_silent_broadcasts_running", factory: self.factory).record(broadcasts)
    }
}
