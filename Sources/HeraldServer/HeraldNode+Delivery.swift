import HeraldCluster
import HeraldDelivery
import HeraldStore
import Logging
import NIOPosix

extension HeraldNode {
    /// How pushes leave the node and what it does with the answers: the providers of the
    /// configured apps, the webhook failed pushes are posted to, and the handler that disables
    /// the registrations of dead tokens.
    struct Delivery {
        /// `nil` when no app is configured.
        let providers: AppProviders?
        /// `nil` without `feedback.url`.
        let feedback: FeedbackWebhook?
        let deadTokens: RegistryDeadTokenHandler
        /// The queues of pushes front doors answer for first; `nil` when no app is configured.
        let acceptedPushes: AcceptedPushQueues?
    }

    /// Throws `ConfigurationError` naming the key when a provider's credentials are missing or
    /// unreadable.
    static func makeDelivery(_ basis: Basis, registry: Registry, cluster: Cluster?) throws -> Delivery {
        let feedback = Self.makeFeedbackWebhook(basis)
        let deadTokens = RegistryDeadTokenHandler(registry: registry, routing: PartitionRouting(forwarder: cluster?.forwarder), logger: basis.logger)
        let providers = try basis.configuration.makeAppProviders(
            context: ProviderContext(
                group: MultiThreadedEventLoopGroup.singleton,
                metrics: DeliveryMetrics(factory: basis.metrics),
                logger: basis.logger,
                clock: basis.clock,
                sharedTokens: cluster.map { ClusterProviderTokens(values: $0.backend.sharedValues, cipher: basis.store.cipher) },
                http2Codec: basis.configuration.delivery.http2Codec
            ),
            deadTokenHandlers: [deadTokens],
            failureObservers: feedback.map { [$0] } ?? []
        )
        let acceptedPushes = providers.map { providers in
            AcceptedPushQueues(
                journal: basis.journal,
                providers: providers,
                maximumAge: basis.configuration.delivery.journalMaximumAge,
                metrics: basis.metrics,
                logger: basis.logger,
                feedbackConfigured: feedback != nil
            )
        }
        return Delivery(providers: providers, feedback: feedback, deadTokens: deadTokens, acceptedPushes: acceptedPushes)
    }

    private static func makeFeedbackWebhook(_ basis: Basis) -> FeedbackWebhook? {
        let feedback = basis.configuration.feedback
        guard let url = feedback.url else { return nil }
        var webhook = FeedbackWebhook.Configuration(url: url, bearerToken: feedback.bearerToken)
        webhook.requestTimeout = feedback.timeout
        webhook.maximumAttempts = feedback.maximumAttempts
        webhook.queueLimit = feedback.queueLimit
        webhook.maximumAge = basis.configuration.delivery.journalMaximumAge
        return FeedbackWebhook(configuration: webhook, metrics: basis.metrics, logger: basis.logger, clock: basis.clock, journal: basis.journal)
    }
}
