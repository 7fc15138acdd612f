import HeraldConfig
import HeraldCore
import HeraldDelivery
public import HeraldFrontDoor
public import Hummingbird

/// The Web Push relay (RFC 8030 push service to APNs and FCM, toot-relay compatible), when
/// `webpush.*` names a relay app.
public struct WebPushFrontDoor: FrontDoor {
    public let relay: WebPushRelay
    let configuration: WebPushConfiguration

    public static func make(configuration: WebPushConfiguration, context: FrontDoorContext) throws -> WebPushFrontDoor? {
        guard configuration.isEnabled else { return nil }
        guard let providers = context.delivery else {
            throw ConfigurationError(.invalidValue, "the Web Push relay needs the apps it relays to: configure apps.<app>.apns.* or apps.<app>.fcm.*")
        }
        for relay in configuration.allRelays {
            let isDefault = relay.name == RelayDefinition.defaultName
            let roles: [(key: String, app: String?, environment: APNSAppConfiguration.Environment)] = [
                ("production-app", relay.productionApp, .production), ("sandbox-app", relay.sandboxApp, .sandbox),
            ]
            for role in roles {
                guard let app = role.app else { continue }
                let name = isDefault ? "webpush.\(role.key)" : "webpush.relays (relay '\(relay.name)')"
                guard let endpoint = providers.provider(app: app, platform: .apns) else {
                    throw ConfigurationError(.invalidValue, "configuration key \(name) names '\(app)', which is not an app with APNs credentials (apps.\(app).apns.*)")
                }
                // Tokens of one environment are BadDeviceToken in the other: a relay app of the
                // wrong environment would answer 410 to every push, and senders would delete
                // every subscription.
                if let environment = endpoint.apnsEnvironment, environment != role.environment {
                    throw ConfigurationError(
                        .invalidValue,
                        "configuration key \(name) names '\(app)', whose apps.\(app).apns.environment is \(environment.rawValue); its relay paths need \(role.environment.rawValue)"
                    )
                }
            }
        }
        for app in configuration.fcmApps where providers.provider(app: app, platform: .fcm) == nil {
            throw ConfigurationError(.invalidValue, "configuration key webpush.fcm-apps names '\(app)', which is not an app with FCM credentials (apps.\(app).fcm.*)")
        }
        let relay = WebPushRelay(
            providers: providers,
            configuration: configuration,
            markers: context.markers,
            metrics: WebPushMetrics(factory: context.metrics),
            logger: context.logger,
            clock: context.clock
        )
        return WebPushFrontDoor(relay: relay, configuration: configuration)
    }

    /// Nothing behind the API's bearer token: Web Push senders cannot send one.
    public func registerRoutes(on router: some RouterMethods<HeraldRequestContext>) {}

    public func registerPublicRoutes(on router: some RouterMethods<HeraldRequestContext>) {
        WebPushRoutes<HeraldRequestContext>(relay: self.relay).register(on: router)
    }

    public var summary: FrontDoorSummary {
        var parts = self.configuration.allRelays.map { relay in
            let apps = [relay.productionApp.map { "production → \($0)" }, relay.sandboxApp.map { "other environments → \($0)" }].compactMap { $0 }
            return "POST \(relay.pathPrefix)/<environment>/<token> (\(apps.joined(separator: ", ")))"
        }
        if !self.configuration.fcmApps.isEmpty {
            parts.append("POST /relay-to-fcm/<app>/<token> (\(self.configuration.fcmApps.joined(separator: ", ")))")
        }
        let vapid = self.configuration.vapidKeys.isEmpty ? "VAPID unchecked" : "VAPID allow-list of \(self.configuration.vapidKeys.count) keys"
        return FrontDoorSummary("front door: Web Push relay \(parts.joined(separator: "; ")); \(vapid); oversize: \(self.configuration.oversize.rawValue)")
    }
}
