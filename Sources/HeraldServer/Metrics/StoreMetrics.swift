import HeraldStore
import Prometheus

/// Gauges of the store, refreshed at scrape time (cheap reads, so no background poller).
struct StoreMetrics: Sendable {
    private let store: LocalStore
    private let records: Gauge
    private let usedBytes: Gauge
    private let mapBytes: Gauge
    private let logHead: Gauge
    private let applied: Gauge

    init(store: LocalStore, registry: PrometheusCollectorRegistry) {
        self.store = store
        func gauge(_ name: String, _ help: String) -> Gauge {
            registry.makeGauge(descriptor: MetricNameDescriptor(namespace: "herald", subsystem: nil, metricName: name, unitName: "", helpText: help))
        }
        self.records = gauge("registry_records", "Registry records in the local view, unregistered keys included.")
        self.usedBytes = gauge("store_used_bytes", "Bytes of the LMDB map in use.")
        self.mapBytes = gauge("store_map_size_bytes", "Current LMDB map size in bytes.")
        self.logHead = gauge("log_head_position", "Position of the last entry of the command log.")
        self.applied = gauge("log_applied_position", "Log position the local view has applied.")
    }

    func refresh() async {
        if let count = try? self.store.view.recordCount() { self.records.set(to: Double(count)) }
        self.usedBytes.set(to: Double(self.store.environment.usedBytes))
        self.mapBytes.set(to: Double(self.store.environment.mapSize))
        if let head = try? await self.store.log.head() { self.logHead.set(to: Double(head)) }
        if let applied = try? self.store.view.appliedPosition() { self.applied.set(to: Double(applied)) }
    }
}
