import Foundation
import HeraldConfig
import HeraldCore
import HeraldDelivery
public import HeraldFrontDoor
public import HeraldStore
public import Hummingbird

/// The Matrix push gateway (a drop-in for Sygnal), when `matrix.apps` maps pushers' `app_id`s to
/// apps.
public struct MatrixFrontDoor: FrontDoor {
    let gateway: MatrixGateway
    let configuration: MatrixConfiguration

    public static func make(configuration: MatrixConfiguration, context: FrontDoorContext) throws -> MatrixFrontDoor? {
        guard configuration.isEnabled else { return nil }
        guard let providers = context.delivery else {
            throw ConfigurationError(.invalidValue, "the Matrix gateway needs the apps it pushes to: configure apps.<app>.apns.*, apps.<app>.fcm.* or apps.<app>.webpush.*")
        }
        for route in configuration.apps {
            let has: [MatrixAppRoute.Platform] = [
                providers.provider(app: route.app, platform: .apns) != nil ? .apns : nil,
                providers.provider(app: route.app, platform: .fcm) != nil ? .fcm : nil,
                providers.provider(app: route.app, platform: .webPush) != nil ? .webpush : nil,
            ].compactMap { $0 }
            if let platform = route.platform {
                guard has.contains(platform) else {
                    throw ConfigurationError(.invalidValue, "configuration key matrix.apps maps \(route.appID) to \(route.app):\(platform.rawValue), which has no such credentials (apps.\(route.app).\(platform.rawValue).*)")
                }
            } else if has.isEmpty {
                throw ConfigurationError(.invalidValue, "configuration key matrix.apps maps \(route.appID) to \(route.app), which is not an app with credentials (apps.\(route.app).*)")
            } else if has.count > 1 {
                let names = has.map(\.rawValue)
                throw ConfigurationError(.invalidValue, "configuration key matrix.apps maps \(route.appID) to \(route.app), which has \(names.joined(separator: " and ")): say \(names.map { route.app + ":" + $0 }.joined(separator: " or "))")
            }
        }
        let gateway = MatrixGateway(
            configuration: configuration,
            providers: providers,
            markers: context.markers,
            routing: context.routing,
            metrics: MatrixMetrics(factory: context.metrics)
        )
        return MatrixFrontDoor(gateway: gateway, configuration: configuration)
    }

    public static func storeSpaces(configuration: MatrixConfiguration) -> StoreSpaces {
        StoreSpaces(markerNamespaces: [configuration.deliveredEvents, configuration.deadPushkeys])
    }

    public func registerRoutes(on router: some RouterMethods<HeraldRequestContext>) {}

    /// Homeservers post to the URL pushers name and send no token of Herald's.
    public func registerPublicRoutes(on router: some RouterMethods<HeraldRequestContext>) {
        MatrixRoutes<HeraldRequestContext>(gateway: self.gateway).register(on: router)
    }

    public func registerInternalRoutes(on router: some RouterMethods<HeraldRequestContext>) {
        MatrixRoutes<HeraldRequestContext>(gateway: self.gateway).registerInternal(on: router)
    }

    public var summary: FrontDoorSummary {
        let apps = self.configuration.apps.map { "\($0.appID) → \($0.app)\($0.platform.map { ":\($0.rawValue)" } ?? "")" }
        return FrontDoorSummary("front door: Matrix push gateway POST /_matrix/push/v1/notify (\(apps.joined(separator: ", ")))")
    }
}
