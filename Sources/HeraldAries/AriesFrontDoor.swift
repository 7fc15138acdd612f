import Foundation
import HeraldConfig
import HeraldCore
import HeraldDelivery
public import HeraldFrontDoor
import HeraldStore
public import Hummingbird

/// The Aries push-notification device-info protocols (RFC 0699, RFC 0734) for a mediator, when
/// `aries.apns-app` or `aries.fcm-app` names an app.
public struct AriesFrontDoor: FrontDoor {
    public let service: AriesService
    let configuration: AriesConfiguration
    /// Herald's own key, when wallets may send it envelopes directly.
    public let identity: DIDCommKey?
    /// Envelopes a minute per client address; `nil` when `aries.client-rate-limit` is 0.
    let clientLimiter: SenderRateLimiter?

    public static func make(configuration: AriesConfiguration, context: FrontDoorContext) throws -> AriesFrontDoor? {
        guard configuration.isEnabled else { return nil }
        guard let providers = context.delivery else {
            throw ConfigurationError(.invalidValue, "the Aries front door needs the apps it pushes to: configure apps.<app>.apns.* or apps.<app>.fcm.*")
        }
        if let app = configuration.apnsApp, providers.provider(app: app, platform: .apns) == nil {
            throw ConfigurationError(.invalidValue, "configuration key aries.apns-app names '\(app)', which is not an app with APNs credentials (apps.\(app).apns.*)")
        }
        if let app = configuration.fcmApp, providers.provider(app: app, platform: .fcm) == nil {
            throw ConfigurationError(.invalidValue, "configuration key aries.fcm-app names '\(app)', which is not an app with FCM credentials (apps.\(app).fcm.*)")
        }
        let service = AriesService(
            configuration: configuration,
            registry: context.registry,
            providers: providers,
            markers: context.markers,
            routing: context.routing,
            metrics: AriesMetrics(factory: context.metrics),
            logger: context.logger,
            wallClock: { Date() }
        )
        let identity = try configuration.identityKeyFile.map { try DIDCommKey(contentsOfFile: $0, key: "aries.identity-key-file") }
        let limiter = configuration.clientRateLimit > 0 ? SenderRateLimiter(perMinute: configuration.clientRateLimit, clock: context.clock) : nil
        return AriesFrontDoor(service: service, configuration: configuration, identity: identity, clientLimiter: limiter)
    }

    public func registerRoutes(on router: some RouterMethods<HeraldRequestContext>) {
        AriesRoutes<HeraldRequestContext>(service: self.service).register(on: router)
    }

    /// The DIDComm endpoint: wallets authenticate by their envelopes, not by the API token.
    public func registerPublicRoutes(on router: some RouterMethods<HeraldRequestContext>) {
        guard let identity = self.identity else { return }
        DIDCommRoutes<HeraldRequestContext>(service: self.service, identity: identity, clientLimiter: self.clientLimiter).register(on: router)
    }

    public func registerInternalRoutes(on router: some RouterMethods<HeraldRequestContext>) {
        AriesRoutes<HeraldRequestContext>(service: self.service).registerInternal(on: router)
    }

    public var summary: FrontDoorSummary {
        let protocols = [self.configuration.apnsApp.map { "push-notifications-apns → \($0)" }, self.configuration.fcmApp.map { "push-notifications-fcm → \($0)" }]
            .compactMap { $0 }
        let direct = self.identity.map { "; DIDComm endpoint POST /aries/v1/didcomm for verkey \($0.verkeyBase58)" } ?? ""
        return FrontDoorSummary("front door: Aries \(protocols.joined(separator: ", ")) at /aries/v1/* (\(self.configuration.style.rawValue) pushes)\(direct)")
    }
}
