import Foundation
import HeraldCore
import HeraldDelivery
import Logging

/// Sends silent pushes (silent-sync.md §2): APNs `background` at priority 5 with
/// `{"aps":{"content-available":1}}`, FCM data-only; each through the device's limiter, so a
/// device gets at most one pending push and at most `silent.rate-limit` an hour.
public struct SilentSender: Sendable {
    /// How a silent push ended, the `outcome` label of `herald_silent_pushes_total`.
    public enum Outcome: String, Sendable, CaseIterable {
        case delivered
        case deadToken = "dead_token"
        case failed
        case coalesced
        case throttled
        /// The device's registration is gone or disabled.
        case unregistered
    }

    static let apnsPayload = Array(#"{"aps":{"content-available":1}}"#.utf8)
    static let fcmPayload = Array(#"{"data":{"sync":"1"}}"#.utf8)

    let providers: AppProviders
    let configuration: SilentConfiguration
    let limiter: DeviceRateLimiter
    let metrics: SilentMetrics
    let wallClock: @Sendable () -> Date

    init(providers: AppProviders, configuration: SilentConfiguration, limiter: DeviceRateLimiter, metrics: SilentMetrics, wallClock: @escaping @Sendable () -> Date) {
        self.providers = providers
        self.configuration = configuration
        self.limiter = limiter
        self.metrics = metrics
        self.wallClock = wallClock
    }

    /// Sends one silent push to `registration` of `service`, unless coalesced or throttled.
    func send(to registration: Registration, service: String) async -> Outcome {
        guard registration.enabled else { return self.count(.unregistered, service: service) }
        let device = Self.limiterKey(registration.key)
        switch self.limiter.take(device) {
        case .coalesced: return self.count(.coalesced, service: service)
        case .throttled: return self.count(.throttled, service: service)
        case .send: break
        }
        defer { self.limiter.finished(device) }
        var notification = PushNotification(
            id: RandomUUID.lowercased(),
            device: registration.device,
            payload: registration.device.platform == .fcm ? Self.fcmPayload : Self.apnsPayload
        )
        notification.registration = registration.key
        notification.collapseID = self.configuration.collapseKey
        let seconds = Int64(self.configuration.timeToLive.components.seconds)
        notification.expiration = seconds == 0 ? 0 : Int64(self.wallClock().timeIntervalSince1970) + seconds
        if registration.device.platform == .fcm {
            notification.priority = self.configuration.fcmPriority == .high ? .immediate : .powerConsiderate
        } else {
            // Background pushes must be priority 5: APNs refuses 10 for them.
            notification.pushType = "background"
            notification.priority = .powerConsiderate
        }
        let outcome: Outcome
        do {
            switch try await self.providers.send(notification) {
            case .delivered: outcome = .delivered
            case .deadToken: outcome = .deadToken
            case .rejected, .failed: outcome = .failed
            }
        } catch {
            outcome = .failed
        }
        return self.count(outcome, service: service)
    }

    private func count(_ outcome: Outcome, service: String) -> Outcome {
        self.metrics.pushed(service: service, outcome: outcome)
        return outcome
    }

    /// 8 bytes of the key's hash: the subject ends in SHA-256 of the `deviceId`.
    static func limiterKey(_ key: RegistrationKey) -> UInt64 {
        key.subject.suffix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
