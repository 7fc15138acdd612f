import CoreMetrics

/// Counters of the Status front door: answers by kind and result, drops by reason.
struct StatusMetrics: Sendable {
    static let answered = "herald_status_answers_total"
    static let dropped = "herald_status_dropped_total"

    let factory: any MetricsFactory

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    func answered(_ kind: String, result: String) {
        Counter(label: Self.answered, dimensions: [("kind", kind), ("result", result)], factory: self.factory).increment()
    }

    func dropped(_ code: StatusError.Code) {
        Counter(label: Self.dropped, dimensions: [("reason", code.rawValue)], factory: self.factory).increment()
    }
}
