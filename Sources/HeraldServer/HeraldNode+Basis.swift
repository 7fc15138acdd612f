import CoreMetrics
import HeraldDelivery
import HeraldFrontDoor
import HeraldStore
import Logging
import Prometheus

extension HeraldNode {
    /// What every step of `build` reads: the configuration, the logger and clock it was given,
    /// the open store, and the metrics registry every part reports to.
    struct Basis {
        let configuration: HeraldConfiguration
        let logger: Logger
        let clock: any Clock<Duration>
        let store: LocalStore
        /// Pushes and feedback events answered for and not yet ended; `nil` with
        /// `delivery.journal: false`.
        let journal: LMDBWorkJournal?
        let metricsRegistry: PrometheusCollectorRegistry
        /// Makes every metric of the node, into `metricsRegistry`.
        let metrics: any MetricsFactory

        init(configuration: HeraldConfiguration, logger: Logger, clock: any Clock<Duration>, store: LocalStore, journal: LMDBWorkJournal?) {
            self.journal = journal
            self.configuration = configuration
            self.logger = logger
            self.clock = clock
            self.store = store
            let registry = PrometheusCollectorRegistry()
            self.metricsRegistry = registry
            self.metrics = Self.metricsFactory(into: registry)
        }

        /// The factory's default buckets (5 ms to 10 s) fit neither latency the node measures:
        /// a provider's answer can take longer than 10 s, and request handling wants resolution
        /// below 5 ms.
        private static func metricsFactory(into registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
            var factory = PrometheusMetricsFactory(registry: registry)
            factory.durationHistogramBuckets[DeliveryMetrics.latency] = [
                .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
                .milliseconds(250), .seconds(1), .seconds(5), .seconds(30),
            ]
            factory.durationHistogramBuckets[HTTPMetricsMiddleware<HeraldRequestContext>.durationLabel] = [
                .microseconds(250), .milliseconds(1), .milliseconds(5), .milliseconds(25), .milliseconds(100),
                .milliseconds(500), .seconds(2), .seconds(10),
            ]
            return factory
        }
    }
}
