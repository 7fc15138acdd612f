import CoreMetrics
public import HeraldCore

/// Routes each notification to the provider of its app and platform, records the outcome in the
/// metrics, and reports dead tokens and failures. One pool per node, built from the configured
/// apps; it knows providers only through `PushProvider`.
public struct DeliveryPool: Sendable {
    /// The providers one configured app delivers through, at most one per platform.
    public struct App: Sendable {
        public var id: String
        public var providers: [any PushProvider]

        public init(id: String, providers: [any PushProvider]) {
            self.id = id
            self.providers = providers
        }

        public func provider(for platform: Platform) -> (any PushProvider)? {
            self.providers.first { $0.platform == platform }
        }
    }

    public let apps: [String: App]
    /// The app of notifications whose device names none.
    public let defaultApp: String?
    public let metrics: DeliveryMetrics
    private let deadTokenHandlers: [any DeadTokenHandler]
    private let failureObservers: [any FailureObserver]
    /// Pushes a minute per device token, across front doors; `nil` is no limit.
    private let deviceLimiter: SenderRateLimiter?

    public init(
        apps: [App],
        defaultApp: String?,
        metrics: DeliveryMetrics,
        deadTokenHandlers: [any DeadTokenHandler] = [],
        failureObservers: [any FailureObserver] = [],
        deviceLimiter: SenderRateLimiter? = nil
    ) {
        self.deviceLimiter = deviceLimiter
        self.apps = Dictionary(apps.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        self.defaultApp = defaultApp ?? (apps.count == 1 ? apps.first?.id : nil)
        self.metrics = metrics
        self.deadTokenHandlers = deadTokenHandlers
        self.failureObservers = failureObservers
    }

    /// The provider of `app` for `platform`.
    public func provider(app: String, platform: Platform) -> (any PushProvider)? {
        self.apps[app]?.provider(for: platform)
    }

    /// The app one of whose providers serves `topic` (APNs: its bundle id, or the bundle id before
    /// a push-type suffix such as `.voip`), for callers that route by topic, as gorush callers do.
    public func appID(forTopic topic: String) -> String? {
        self.apps.first { $0.value.providers.contains { $0.serves(topic: topic) } }?.key
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
            let event = FeedbackEvent(notification, app: appID, outcome: .failed(DeliveryFailure(.overloaded, "max capacity reached")))
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
            return .rejected(DeliveryFailure(.unknownApp, "UnknownApp"))
        }
        let platform = notification.device.platform
        guard let provider = app.provider(for: platform) else {
            return .failed(DeliveryFailure(.noProvider, "app \(appID) has no \(platform) credentials"))
        }
        let token = notification.device.token
        if let limiter = self.deviceLimiter, !token.isEmpty, limiter.take(appID + " " + token) != nil {
            self.metrics.recordDeviceRateLimited(app: appID)
            return .failed(DeliveryFailure(.tooManyRequests, "TooManyRequests: this device was sent more than \(limiter.perMinute) pushes a minute"))
        }
        let start = ContinuousClock.now
        let outcome: DeliveryOutcome
        do {
            outcome = try await provider.send(notification)
        } catch {
            self.metrics.recordOverloaded(provider: provider.name, app: appID)
            throw error
        }
        self.metrics.record(provider: provider.name, app: appID, outcome: outcome, duration: ContinuousClock.now - start)
        if case .deadToken(let failure) = outcome {
            for handler in self.deadTokenHandlers {
                await handler.tokenIsDead(notification, reason: failure.detail)
            }
        }
        return outcome
    }

    /// Sets the queue-depth, open-connection and connect-failure gauges; called when metrics are
    /// scraped.
    public func sampleGauges() async {
        for (id, app) in self.apps {
            for provider in app.providers {
                self.metrics.gauge(DeliveryMetrics.queueDepth, provider: provider.name, app: id).record(await provider.queueDepth)
                self.metrics.gauge(DeliveryMetrics.openConnections, provider: provider.name, app: id).record(await provider.openConnections)
                let failures = await provider.connectFailures
                self.metrics.connectFailures(provider: provider.name, app: id, reason: "open_files").record(failures.outOfFiles)
                self.metrics.connectFailures(provider: provider.name, app: id, reason: "other").record(failures.other)
            }
        }
    }

    /// Closes every provider's connections.
    public func shutdown() async {
        for app in self.apps.values {
            for provider in app.providers { await provider.shutdown() }
        }
    }
}
