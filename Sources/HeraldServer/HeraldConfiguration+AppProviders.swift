import HeraldDelivery

extension HeraldConfiguration {
    /// The delivery pool of the configured apps; `nil` when no app is configured. Each provider
    /// reads its own credential files, so a missing or malformed one stops start-up naming its key.
    func makeAppProviders(
        context: ProviderContext,
        deadTokenHandlers: [any DeadTokenHandler],
        failureObservers: [any FailureObserver] = []
    ) throws -> AppProviders? {
        guard !self.apps.isEmpty else { return nil }
        let apps = try self.apps.sorted(by: { $0.key < $1.key }).map { id, app in
            AppProviders.App(id: id, providers: try HeraldNode.providers.compactMap { try Self.make($0, app: id, from: app, context: context) })
        }
        return AppProviders(
            apps: apps,
            defaultApp: self.delivery.defaultApp,
            metrics: context.metrics,
            deadTokenHandlers: deadTokenHandlers,
            failureObservers: failureObservers,
            deviceLimiter: self.delivery.deviceRateLimit > 0
                ? SenderRateLimiter(perMinute: self.delivery.deviceRateLimit, capacity: 1_000_000, clock: context.clock) : nil
        )
    }

    private static func make<Provider: ConfigurablePushProvider>(
        _ type: Provider.Type,
        app id: String,
        from app: App,
        context: ProviderContext
    ) throws -> (any PushProvider)? {
        guard let configuration = app[Provider.AppConfiguration.self] else { return nil }
        return try Provider.make(app: id, configuration: configuration, context: context)
    }

    /// One line per app for the start-up log; never a key itself.
    public var appSummary: String {
        self.apps.sorted(by: { $0.key < $1.key }).map { id, app in
            "\(id) (\(app.summaries.joined(separator: "; ")))"
        }.joined(separator: "; ")
    }
}
