import HeraldConfig
import HeraldCore
import HeraldDelivery
public import HeraldFrontDoor
public import Hummingbird
public import ServiceLifecycle
import Foundation
import HeraldStore

/// Silent "sync now" pushes for apps that only need a wake-up (NotifyMe's design), when
/// `silent.app` or `silent.services` names an app.
public struct SilentFrontDoor: FrontDoor {
    public let sync: SilentSync
    let configuration: SilentConfiguration
    /// Registrations a minute per client address; `nil` when `silent.client-rate-limit` is 0.
    let registrationLimiter: SenderRateLimiter?

    public static func make(configuration: SilentConfiguration, context: FrontDoorContext) throws -> SilentFrontDoor? {
        guard configuration.isEnabled else { return nil }
        guard let providers = context.delivery else {
            throw ConfigurationError(.invalidValue, "silent sync needs the apps it pushes to: configure apps.<app>.apns.* or apps.<app>.fcm.*")
        }
        for service in configuration.allServices {
            let key = service.name == SilentService.defaultName ? "silent.app" : "silent.services (service '\(service.name)')"
            let apns = providers.provider(app: service.app, platform: .apns)
            guard apns != nil || providers.provider(app: service.app, platform: .fcm) != nil else {
                throw ConfigurationError(.invalidValue, "configuration key \(key) names '\(service.app)', which is not an app with APNs or FCM credentials")
            }
            // IOS and IOD tokens are BadDeviceToken in each other's environment: a mix-up would
            // disable every registration at the first push.
            if let environment = apns?.apnsEnvironment, environment != .production {
                throw ConfigurationError(.invalidValue, "configuration key \(key) names '\(service.app)', whose APNs environment is sandbox; IOS devices need production (IOD ones go to the sandbox app)")
            }
            if let sandbox = service.sandboxApp {
                let sandboxKey = service.name == SilentService.defaultName ? "silent.sandbox-app" : key
                guard providers.provider(app: sandbox, platform: .apns)?.apnsEnvironment == .sandbox else {
                    throw ConfigurationError(.invalidValue, "configuration key \(sandboxKey) names '\(sandbox)', which is not an app with APNs credentials for the sandbox environment")
                }
            }
        }
        let metrics = SilentMetrics(factory: context.metrics)
        let wallClock: @Sendable () -> Date = { Date() }
        let sender = SilentSender(
            providers: providers,
            configuration: configuration,
            limiter: DeviceRateLimiter(perHour: configuration.rateLimit, clock: context.clock),
            metrics: metrics,
            wallClock: wallClock
        )
        let sync = SilentSync(
            services: Dictionary(configuration.allServices.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first }),
            providers: providers,
            registrations: SilentRegistrations(registry: context.registry, deadTokens: context.deadTokens, logger: context.logger),
            view: context.registry.view,
            sender: sender,
            broadcasts: SilentBroadcasts(
                view: context.registry.view,
                markers: context.markers,
                sender: sender,
                metrics: metrics,
                rate: configuration.broadcastRate,
                limits: configuration.broadcastLimits,
                clock: context.clock,
                wallClock: wallClock,
                logger: context.logger
            ),
            metrics: metrics,
            routing: context.routing,
            logger: context.logger,
            wallClock: wallClock
        )
        let limiter = configuration.clientRateLimit > 0 ? SenderRateLimiter(perMinute: configuration.clientRateLimit, clock: context.clock) : nil
        return SilentFrontDoor(sync: sync, configuration: configuration, registrationLimiter: limiter)
    }

    public func registerRoutes(on router: some RouterMethods<HeraldRequestContext>) {
        SilentRoutes<HeraldRequestContext>(sync: self.sync).registerAPI(on: router)
    }

    public func registerPublicRoutes(on router: some RouterMethods<HeraldRequestContext>) {
        SilentRoutes<HeraldRequestContext>(sync: self.sync, registrationLimiter: self.registrationLimiter).registerPublic(on: router)
    }

    public func registerInternalRoutes(on router: some RouterMethods<HeraldRequestContext>) {
        SilentRoutes<HeraldRequestContext>(sync: self.sync).registerInternal(on: router)
    }

    /// Resumes unfinished broadcasts at start and stops their walks at shutdown.
    public var services: [any Service] {
        [SilentBroadcastService(broadcasts: self.sync.broadcasts)]
    }

    public var summary: FrontDoorSummary {
        let services = self.configuration.allServices.map { service in
            "POST \(service.pathPrefix)/v3/register → \(service.app)\(service.sandboxApp.map { " (IOD → \($0))" } ?? "")"
        }
        let limit = self.configuration.rateLimit == 0 ? "no per-device limit" : "at most \(self.configuration.rateLimit) an hour a device"
        return FrontDoorSummary("front door: silent sync \(services.joined(separator: "; ")); sync and broadcasts at /silent/v1/*; \(limit)")
    }
}
