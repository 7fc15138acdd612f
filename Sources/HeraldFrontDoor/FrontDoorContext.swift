public import CoreMetrics
public import HeraldCore
public import HeraldCluster
public import HeraldDelivery
public import HeraldStore
public import Logging

/// What the node gives every front door: where registrations live, how pushes leave, and how to
/// report. In a cluster the registry and markers are the router's.
public struct FrontDoorContext: Sendable {
    /// Registrations: reads from the local view, writes through the command log.
    public var registry: Registry
    /// Dedup markers of handled messages.
    public var markers: MessageMarkers
    /// The node's delivery pool; `nil` when no app is configured.
    public var delivery: AppProviders?
    public var metrics: any MetricsFactory
    public var logger: Logger
    /// The effective configuration as YAML, secrets redacted (gorush serves it at `/api/config`).
    public var configurationText: String?
    /// The one way to reach a partition's owner: here alone, or forwarded once in a cluster.
    public var routing: PartitionRouting
    /// Times rate limits and expiries (a test clock in tests).
    public var clock: any Clock<Duration>
    /// Disables a registration whose token is dead or has moved, through its partition's owner.
    public var deadTokens: (any DeadTokenHandler)?
    /// The node's queues of pushes answered for before delivery, kept in its journal; `nil`
    /// when no app is configured (or a test gives none: queues then live in memory).
    public var acceptedPushes: AcceptedPushQueues?

    public init(
        registry: Registry,
        markers: MessageMarkers,
        delivery: AppProviders?,
        metrics: any MetricsFactory,
        logger: Logger,
        configurationText: String? = nil,
        routing: PartitionRouting = .alone,
        clock: any Clock<Duration> = ContinuousClock(),
        deadTokens: (any DeadTokenHandler)? = nil,
        acceptedPushes: AcceptedPushQueues? = nil
    ) {
        self.acceptedPushes = acceptedPushes
        self.clock = clock
        self.deadTokens = deadTokens
        self.routing = routing
        self.registry = registry
        self.markers = markers
        self.delivery = delivery
        self.metrics = metrics
        self.logger = logger
        self.configurationText = configurationText
    }
}

extension FrontDoorContext {
    /// A queue for pushes a front door answers for before delivering them: kept in the node's
    /// journal under `owner` (a restart resumes them), or in memory when the node has none.
    public func queue(owner: String, limit: Int, deliver: @escaping @Sendable ([PushNotification]) async -> Void) -> DeliveryQueue {
        self.acceptedPushes?.queue(owner: owner, limit: limit, deliver: deliver) ?? DeliveryQueue(limit: limit, deliver: deliver)
    }
}
