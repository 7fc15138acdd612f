import CoreMetrics
public import HeraldCore

/// Routes each notification to the endpoint of its app and platform, records the outcome in the
/// metrics, and reports dead tokens. One pool per node, built from the configured apps.
public struct DeliveryPool: Sendable {
    /// The providers one configured app delivers through.
    public struct App: Sendable {
        public var id: String
        public var apns: APNSEndpoint?
        public var fcm: FCMEndpoint?

        public init(id: String, apns: APNSEndpoint? = nil, fcm: FCMEndpoint? = nil) {
            self.id = id
            self.apns = apns
            self.fcm = fcm
        }
    }

    public let apps: [String: App]
    /// The app of notifications whose device names none.
    public let defaultApp: String?
    public let metrics: DeliveryMetrics
    private let deadTokenHandlers: [any DeadTokenHandler]
    private let failureObservers: [any FailureObserver]

    public init(
        apps: [App],
        defaultApp: String?,
        metrics: DeliveryMetrics,
        deadTokenHandlers: [any DeadTokenHandler] = [],
        failureObservers: [any FailureObserver] = []
    ) {
        self.apps = Dictionary(apps.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        self.defaultApp = defaultApp ?? (apps.count == 1 ? apps.first?.id : nil)
        self.metrics = metrics
        self.deadTokenHandlers = deadTokenHandlers
        self.failureObservers = failureObservers
    }

    /// The app whose APNs topic is `topic` (or its bundle id before a push-type suffix such as
    /// `.voip`), for callers that route by topic, as gorush callers do.
    public func appID(forTopic topic: String) -> String? {
        for (id, app) in self.apps {
            guard let own = app.apns?.configuration.defaultTopic else { continue }
            if topic == own || topic.hasPrefix(own + ".") { return id }
        }
        return nil
    }

    /// Delivers `notification`; throws `DeliveryError` only when it was not admitted.
    public func send(_ notification: PushNotification) async throws(DeliveryError) -> DeliveryOutcome {
        let appID = notification.device.app ?? self.defaultApp
        let outcome: DeliveryOutcome
        do {
            outcome = try await self.deliver(notification, appID: appID)
        } catch {
            // Not admitted: the caller hears it, and so does feedback, for callers (gorush's
            // async mode) that have already answered.
            let event = FeedbackEvent(notification, app: appID, outcome: .failed(reason: "max capacity reached"))
            for observer in self.failureObservers { observer.pushFailed(event) }
            throw error
        }
        if outcome != .delivered {
            let event = FeedbackEvent(notification, app: appID, outcome: outcome)
            for observer in self.failureObservers { observer.pushFailed(event) }
        }
        return outcome
    }

    private func deliver(_ notification: PushNotification, appID: String?) async throws(DeliveryError) -> DeliveryOutcome {
        guard let appID, let app = self.apps[appID] else {
            return .rejected(reason: "UnknownApp")
        }
        let provider: String
        let send: (PushNotification) async throws(DeliveryError) -> DeliveryOutcome
        switch notification.device.platform {
        case .apns:
            guard let endpoint = app.apns else { return .failed(reason: "NoAPNsCredentials") }
            (provider, send) = ("apns", endpoint.send)
        case .fcm:
            guard let endpoint = app.fcm else { return .failed(reason: "NoFCMCredentials") }
            (provider, send) = ("fcm", endpoint.send)
        default:
            return .failed(reason: "UnsupportedPlatform")
        }
        let start = ContinuousClock.now
        let outcome: DeliveryOutcome
        do {
            outcome = try await send(notification)
        } catch {
            self.metrics.recordOverloaded(provider: provider, app: appID)
            throw error
        }
        self.metrics.record(provider: provider, app: appID, outcome: outcome, duration: ContinuousClock.now - start)
        if case .deadToken(let reason) = outcome {
            for handler in self.deadTokenHandlers {
                await handler.tokenIsDead(notification, reason: reason)
            }
        }
        return outcome
    }

    /// Sets the queue-depth and open-connection gauges; called when metrics are scraped.
    public func sampleGauges() async {
        for (id, app) in self.apps {
            if let endpoint = app.apns {
                self.metrics.gauge(DeliveryMetrics.queueDepth, provider: "apns", app: id).record(await endpoint.queueDepth)
                self.metrics.gauge(DeliveryMetrics.openConnections, provider: "apns", app: id).record(await endpoint.openConnections)
            }
            if let endpoint = app.fcm {
                self.metrics.gauge(DeliveryMetrics.queueDepth, provider: "fcm", app: id).record(await endpoint.queueDepth)
                self.metrics.gauge(DeliveryMetrics.openConnections, provider: "fcm", app: id).record(await endpoint.openConnections)
            }
        }
    }

    /// Closes every endpoint's connections.
    public func shutdown() async {
        for app in self.apps.values {
            await app.apns?.shutdown()
            await app.fcm?.shutdown()
        }
    }
}
