import HeraldConfig
public import HeraldCore
import HeraldDelivery
import Foundation
import HeraldGorush
public import Logging
import Metrics
import NIOPosix

/// `herald send`: one push through one app's provider, built from the node's configuration as
/// `herald serve` builds it, so an operator can test credentials before pointing clients at the
/// node (what gorush's CLI mode is for). The push is the one gorush's `/api/push` would send for
/// the same fields.
public struct OnePush: Sendable {
    public var app: String
    public var token: String
    /// `nil`: the app's only provider's.
    public var platform: Platform?
    public var title: String?
    public var message: String
    public var pushType: String?
    /// APNs: the bundle id instead of the app's `topic`.
    public var topic: String?
    /// APNs: the sandbox environment instead of the app's.
    public var sandbox = false

    public init(app: String, token: String, message: String) {
        self.app = app
        self.token = token
        self.message = message
    }

    /// What the provider answered.
    public struct Answer: Sendable {
        public var provider: String
        /// The provider's host, port and environment, as the start-up log names them.
        public var endpoint: String
        public var outcome: DeliveryOutcome
        /// The HTTP status of the provider's last answer; `nil` when none came (no connection).
        public var status: Int?
        /// APNs' `apns-id` of the push.
        public var apnsID: String?
        /// FCM's `projects/…/messages/…` of a sent message.
        public var messageName: String?
        public var duration: Duration

        public var delivered: Bool { self.outcome == .delivered }
    }

    /// Why the push could not even be tried; the message says what to change.
    public struct Refusal: Error, CustomStringConvertible {
        public var description: String
    }

    /// Sends the push and waits for the provider's last answer. Throws `Refusal` when the app,
    /// the platform or the fields do not make a push, `ConfigurationError` naming the key when
    /// the app's credentials cannot be read.
    public func send(configuration: HeraldConfiguration, logger: Logger) async throws -> Answer {
        guard var app = configuration.apps[self.app] else {
            let known = configuration.apps.keys.sorted()
            throw Refusal(description: "no app \(self.app) in the configuration (apps: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
        }
        if self.sandbox {
            guard var apns = app[APNSAppConfiguration.self] else {
                throw Refusal(description: "--sandbox is an APNs environment, and app \(self.app) has no apns section")
            }
            apns.environment = .sandbox
            app[APNSAppConfiguration.self] = apns
        }
        let platform = try self.platform(of: app)
        let endpoint: String
        switch platform {
        case .apns: endpoint = app[APNSAppConfiguration.self]?.summary ?? "APNs"
        case .webPush: endpoint = app[WebPushAppConfiguration.self]?.summary ?? "Web Push"
        default: endpoint = app[FCMAppConfiguration.self]?.summary ?? "FCM"
        }
        // Only this app's provider for this platform is built: another's missing key file is
        // not this push's problem.
        if platform != .apns { app[APNSAppConfiguration.self] = nil }
        if platform != .fcm { app[FCMAppConfiguration.self] = nil }
        if platform != .webPush { app[WebPushAppConfiguration.self] = nil }
        var only = configuration
        only.apps = [self.app: app]
        only.delivery.deviceRateLimit = 0
        let providers = try only.makeAppProviders(
            context: ProviderContext(group: MultiThreadedEventLoopGroup.singleton, metrics: DeliveryMetrics(factory: NOOPMetricsHandler.instance), logger: logger),
            deadTokenHandlers: []
        )
        guard let providers, let provider = providers.provider(app: self.app, platform: platform) else {
            throw Refusal(description: "app \(self.app) has no \(platform) provider")
        }
        let notification: PushNotification
        do {
            notification = try self.notification(platform: platform)
        } catch {
            await providers.shutdown()
            throw error
        }
        let result = await provider.send(all: [notification])[0]
        await providers.shutdown()
        let outcome: DeliveryOutcome
        switch result.result {
        case .success(let ended): outcome = ended
        case .failure(let refused): outcome = .failed(DeliveryFailure(.overloaded, "not admitted: \(refused.message)"))
        }
        var answer = Answer(provider: provider.name, endpoint: endpoint, outcome: outcome, status: result.answer?.status, duration: result.duration)
        if let response = result.answer {
            switch platform {
            case .apns: answer.apnsID = APNSResponse(response).apnsID
            case .fcm: answer.messageName = FCMResponse(response).name
            default: break
            }
        }
        return answer
    }

    private func platform(of app: HeraldConfiguration.App) throws -> Platform {
        let available: [Platform] = [
            app[APNSAppConfiguration.self] != nil ? .apns : nil,
            app[FCMAppConfiguration.self] != nil ? .fcm : nil,
            app[WebPushAppConfiguration.self] != nil ? .webPush : nil,
        ].compactMap { $0 }
        if let platform = self.platform {
            guard available.contains(platform) else {
                throw Refusal(description: "app \(self.app) has no \(platform) section")
            }
            return platform
        }
        guard available.count == 1, let only = available.first else {
            throw Refusal(description: available.isEmpty ? "app \(self.app) has no provider" : "app \(self.app) has \(available.map(\.description).joined(separator: " and ")): say --platform ios, android or web")
        }
        return only
    }

    /// The push gorush's `/api/push` makes of the same fields (platform 1 is iOS, 2 Android, 4
    /// Web Push).
    func notification(platform: Platform) throws -> PushNotification {
        let number = platform == .apns ? 1 : platform == .fcm ? 2 : 4
        var entry: [String: Any] = ["platform": number, "tokens": [self.token], "message": self.message]
        if let title = self.title { entry["title"] = title }
        if let pushType = self.pushType { entry["push_type"] = pushType }
        if let topic = self.topic { entry["topic"] = topic }
        let body = try JSONSerialization.data(withJSONObject: ["notifications": [entry]])
        let entries: [GorushNotification]
        do {
            entries = try GorushPushRequest.decode(Array(body), limits: GorushRequestLimits())
        } catch {
            throw Refusal(description: error.message)
        }
        guard let entry = entries.first else { throw Refusal(description: "no push in the request") }
        if platform == .fcm, let problem = entry.androidProblem { throw Refusal(description: problem) }
        var pushes: [PushNotification]
        switch platform {
        case .apns: pushes = entry.apnsNotifications()
        case .fcm: pushes = entry.fcmNotifications()
        default: pushes = entry.webPushNotifications()
        }
        guard pushes.count == 1 else { throw Refusal(description: "the fields make \(pushes.count) pushes, not one") }
        pushes[0].device.app = self.app
        return pushes[0]
    }
}
