import CoreMetrics
import HeraldDelivery
import HeraldStatus
import HeraldStore
import Logging

extension HeraldConfiguration {
    /// The Status front door, when an identity key is configured: it delivers through the
    /// external gorush when `status.gorush-url` is set, else through the node's pool.
    func makeStatusServer(
        store: LocalStore,
        registry: Registry,
        delivery: DeliveryPool?,
        dispatcher: DeliveryDispatcher,
        metrics: any MetricsFactory,
        logger: Logger
    ) throws -> StatusServer? {
        guard let keyFile = self.status.identityKeyFile else { return nil }
        let identity = try StatusIdentity(contentsOfFile: keyFile)
        let pushes: any StatusPushDelivery
        if let url = self.status.gorushURL {
            pushes = StatusGorushForwarder(baseURL: url, logger: logger)
        } else if let delivery {
            pushes = StatusPoolDelivery(pool: delivery, dispatcher: dispatcher, logger: logger)
        } else {
            throw ConfigurationError(
                .invalidValue,
                "the Status front door needs a way to push: configure an app (apps.<app>.apns.* or apps.<app>.fcm.*) or status.gorush-url"
            )
        }
        var configuration = StatusServer.Configuration()
        configuration.deduplicationWindow = self.status.deduplicationWindow
        let server = StatusServer(
            identity: identity,
            registry: registry,
            markers: store.markers,
            delivery: pushes,
            configuration: configuration,
            metrics: metrics,
            logger: logger
        )
        try server.joinStoredQueryTopics()
        return server
    }
}
