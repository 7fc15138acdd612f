public import CoreMetrics

/// The Matrix gateway's counters.
public struct MatrixMetrics: Sendable {
    let factory: any MetricsFactory

    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// A notify request: `ok` (200), `retry` (502), or refused (`M_…`).
    func request(_ result: String) {
        Counter(label: "herald_matrix_requests_total", dimensions: [("result", result)], factory: self.factory).increment()
    }

    /// One device of a request: `pushed`, `skipped`, `rejected`, `failed`.
    func device(_ result: String) {
        Counter(label: "herald_matrix_devices_total", dimensions: [("result", result)], factory: self.factory).increment()
    }
}
