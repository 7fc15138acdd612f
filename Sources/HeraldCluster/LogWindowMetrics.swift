public import CoreMetrics

/// What `/metrics` shows of the log's window: where it begins, what this node deleted, whether
/// it trims.
public struct LogWindowMetrics: Sendable {
    let trimPointGauge: Gauge
    let deletedCounter: Counter
    let trimmerGauge: Gauge

    public init(factory: any MetricsFactory) {
        self.trimPointGauge = Gauge(label: "herald_cluster_log_trim_point", factory: factory)
        self.deletedCounter = Counter(label: "herald_cluster_log_trimmed_entries_total", factory: factory)
        self.trimmerGauge = Gauge(label: "herald_cluster_log_trimmer", factory: factory)
    }

    func trimPoint(_ position: UInt64) { self.trimPointGauge.record(Double(position)) }
    func deleted(_ count: Int) { self.deletedCounter.increment(by: count) }
    func trimmer(_ holds: Bool) { self.trimmerGauge.record(holds ? 1 : 0) }
}
