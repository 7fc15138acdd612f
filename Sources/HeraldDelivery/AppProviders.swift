import CoreMetrics
public import HeraldCore

/// Routes each notification to the provider of its app and platform, records the outcome in the
/// metrics, and reports dead tokens and failures. One pool per node, built from the configured
/// apps; it knows providers only through `PushProvider`.
public struct AppProviders: Sendable {
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
    /// a push-type suffix such as `.voip`), for callers that route by topic.
    public func appID(forTopic topic: String) -> String? {
        self.apps.first { $0.value.providers.contains { $0.serves(topic: topic) } }?.key
    }

    /// Delivers `notification`, as a batch of one; throws `AdmissionError` only when it was not
    /// admitted.
    public func send(_ notification: PushNotification) async throws(AdmissionError) -> DeliveryOutcome {
        try await self.send(all: [notification])[0].get()
    }

    /// Delivers every notification, in order: each to an outcome, or refused with
    /// `AdmissionError` when its provider did not admit it. Those for one provider go to it
    /// together (`PushProvider.send(all:)`): a request with many tokens costs no task per token.
    public func send(all notifications: [PushNotification]) async -> [Result<DeliveryOutcome, AdmissionError>] {
        // One push, the commonest call, goes to its provider without the grouping below (the
        // batch dictionary, the task group, the arrays): measured alternately, without this a
        // request carrying one device token cost 12 % more CPU (docs/benchmarks.md, "One send path per
        // layer"). Below this layer a push is a batch of one.
        if notifications.count == 1, let only = notifications.first {
            let result = await self.sendOne(only)
            self.report(only, app: only.device.app ?? self.defaultApp, result)
            return [result]
        }
        var results = [Result<DeliveryOutcome, AdmissionError>?](repeating: nil, count: notifications.count)
        // A request's pushes mostly share one app and platform: a list searched in place, not a
        // dictionary keyed by a string made for each push.
        var batches: [(appID: String, provider: any PushProvider, slots: [Int])] = []
        for (index, notification) in notifications.enumerated() {
            let appID = notification.device.app ?? self.defaultApp
            switch self.route(notification, appID: appID) {
            case .settled(let outcome):
                results[index] = .success(outcome)
            case .provider(let appID, let provider):
                if let batch = batches.firstIndex(where: { $0.appID == appID && $0.provider.name == provider.name }) {
                    batches[batch].slots.append(index)
                } else {
                    var slots: [Int] = []
                    slots.reserveCapacity(notifications.count - index)
                    slots.append(index)
                    batches.append((appID, provider, slots))
                }
            }
        }
        let batchResults: [(Int, Result<DeliveryOutcome, AdmissionError>)]
        if batches.count == 1, let only = batches.first {
            batchResults = await self.send(batch: only.slots, of: notifications, appID: only.appID, provider: only.provider)
        } else {
            // Providers are sent to at once: one's retries must not hold another's pushes.
            batchResults = await withTaskGroup(of: [(Int, Result<DeliveryOutcome, AdmissionError>)].self) { group in
                var ended: [(Int, Result<DeliveryOutcome, AdmissionError>)] = []
                ended.reserveCapacity(notifications.count)
                guard let first = batches.first else { return ended }
                for batch in batches.dropFirst() {
                    group.addTask { await self.send(batch: batch.slots, of: notifications, appID: batch.appID, provider: batch.provider) }
                }
                ended += await self.send(batch: first.slots, of: notifications, appID: first.appID, provider: first.provider)
                for await more in group { ended += more }
                return ended
            }
        }
        for (index, result) in batchResults { results[index] = result }
        return zip(notifications, results).map { notification, result in
            let result = result ?? .failure(AdmissionError(.overloaded, "not sent", retryAfter: .seconds(1)))
            self.report(notification, app: notification.device.app ?? self.defaultApp, result)
            return result
        }
    }

    /// Tells every failure observer of a push that was not delivered; one never admitted too, for
    /// callers that have already answered theirs.
    private func report(_ notification: PushNotification, app appID: String?, _ result: Result<DeliveryOutcome, AdmissionError>) {
        let outcome: DeliveryOutcome
        switch result {
        case .success(.delivered): return
        case .success(let failed): outcome = failed
        case .failure(let error): outcome = .failed(DeliveryFailure(.overloaded, "not admitted: \(error.message)"))
        }
        guard !self.failureObservers.isEmpty else { return }
        let event = FeedbackEvent(notification, app: appID, outcome: outcome)
        for observer in self.failureObservers { observer.pushFailed(event) }
    }

    /// Tells every failure observer of a push that ended without reaching a provider (one found
    /// past its deadline after a restart).
    public func reportUndelivered(_ notification: PushNotification, outcome: DeliveryOutcome) {
        self.report(notification, app: notification.device.app ?? self.defaultApp, .success(outcome))
    }

    private func sendOne(_ notification: PushNotification) async -> Result<DeliveryOutcome, AdmissionError> {
        switch self.route(notification, appID: notification.device.app ?? self.defaultApp) {
        case .settled(let outcome):
            return .success(outcome)
        case .provider(let appID, let provider):
            return await self.send(batch: [0], of: [notification], appID: appID, provider: provider)[0].1
        }
    }

    /// One provider's share of `send(all:)`: its outcomes recorded and its dead tokens reported.
    private func send(batch slots: [Int], of notifications: [PushNotification], appID: String, provider: any PushProvider) async -> [(Int, Result<DeliveryOutcome, AdmissionError>)] {
        let sent = await provider.send(all: slots.count == notifications.count ? notifications : slots.map { notifications[$0] })
        var ended: [(Int, Result<DeliveryOutcome, AdmissionError>)] = []
        ended.reserveCapacity(slots.count)
        var finished: [(outcome: DeliveryOutcome, duration: Duration)] = []
        finished.reserveCapacity(slots.count)
        var dead: [(index: Int, reason: String)] = []
        for (index, ending) in zip(slots, sent) {
            switch ending.result {
            case .success(let outcome):
                finished.append((outcome, ending.duration))
                if case .deadToken(let failure) = outcome { dead.append((index, failure.detail)) }
            case .failure:
                self.metrics.recordOverloaded(provider: provider.name, app: appID)
            }
            ended.append((index, ending.result))
        }
        // Counted before the handlers run: a slow one (a store write) must not hold the counts.
        self.metrics.record(provider: provider.name, app: appID, ended: finished)
        for (index, reason) in dead {
            for handler in self.deadTokenHandlers { await handler.tokenIsDead(notifications[index], reason: reason) }
        }
        return ended
    }

    private enum Route {
        /// Ended before a provider: no app, no provider, the device's rate limit.
        case settled(DeliveryOutcome)
        case provider(appID: String, any PushProvider)
    }

    /// Pushes that end here are counted too, under provider `none`; an app no configuration
    /// names is counted as `unknown`, since its name comes from the client.
    private func route(_ notification: PushNotification, appID: String?) -> Route {
        guard let appID, let app = self.apps[appID] else {
            return self.settled(.rejected(DeliveryFailure(.unknownApp, "UnknownApp")), app: "unknown")
        }
        let platform = notification.device.platform
        guard let provider = app.provider(for: platform) else {
            return self.settled(.failed(DeliveryFailure(.noProvider, "app \(appID) has no \(platform) credentials")), app: appID)
        }
        let token = notification.device.token
        if let limiter = self.deviceLimiter, !token.isEmpty, limiter.take(appID + " " + token) != nil {
            self.metrics.recordDeviceRateLimited(app: appID)
            return self.settled(.failed(DeliveryFailure(.tooManyRequests, "TooManyRequests: this device was sent more than \(limiter.perMinute) pushes a minute")), app: appID)
        }
        return .provider(appID: appID, provider)
    }

    private func settled(_ outcome: DeliveryOutcome, app: String) -> Route {
        self.metrics.recordSettled(app: app, outcome: outcome)
        return .settled(outcome)
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
