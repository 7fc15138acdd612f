import CoreMetrics
import HeraldBuildInfo
import HeraldStore

/// Gauges of the store and the node's state, refreshed at scrape time: the reads are cheap, so no
/// background poller.
struct StoreMetrics: Sendable {
    private let store: LocalStore
    private let log: any CommandLog
    private let records: Gauge
    private let usedBytes: Gauge
    private let mapBytes: Gauge
    private let logHead: Gauge
    private let applied: Gauge
    private let lag: Gauge
    /// 1 when `/readyz` would answer 200: alert rules need not re-derive it from lag and etcd.
    private let ready: Gauge
    /// 1, labelled with the version and commit, so a dashboard shows what each node runs.
    private let buildInfo: Gauge

    init(store: LocalStore, log: any CommandLog, factory: any MetricsFactory) {
        self.store = store
        self.log = log
        self.records = Gauge(label: "herald_registry_records", factory: factory)
        self.usedBytes = Gauge(label: "herald_store_used_bytes", factory: factory)
        self.mapBytes = Gauge(label: "herald_store_map_size_bytes", factory: factory)
        self.logHead = Gauge(label: "herald_log_head_position", factory: factory)
        self.applied = Gauge(label: "herald_log_applied_position", factory: factory)
        self.lag = Gauge(label: "herald_log_lag_positions", factory: factory)
        self.ready = Gauge(label: "herald_ready", factory: factory)
        self.buildInfo = Gauge(label: "herald_build_info", dimensions: [("version", HeraldBuildInfo.version), ("commit", HeraldBuildInfo.commit)], factory: factory)
    }

    /// `head` is the log head as just read, `nil` when it could not be read in time: the head
    /// and lag gauges then keep their last values.
    func refresh(head: UInt64?, ready: Bool) {
        self.ready.record(ready ? 1 : 0)
        self.buildInfo.record(1)
        if let count = try? self.store.view.recordCount() { self.records.record(count) }
        if let used = try? self.store.environment.usedBytes() { self.usedBytes.record(used) }
        self.mapBytes.record(self.store.environment.mapSize)
        let applied = try? self.store.view.appliedPosition()
        if let head { self.logHead.record(head) }
        if let applied { self.applied.record(applied) }
        if let head, let applied { self.lag.record(head > applied ? head - applied : 0) }
    }
}
