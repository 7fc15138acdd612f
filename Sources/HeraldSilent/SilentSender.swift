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

    /// Sends one silent push to `registration` of `service`, unless coalesced or throttled: a
    /// batch of one.
    func send(to registration: Registration, service: String) async -> Outcome {
        await self.send(to: [registration], service: service)[0]
    }

    /// Sends one silent push to each of `registrations` of `service`, unless coalesced or
    /// throttled, together: those for one provider leave in one trip to a connection
    /// (`AppProviders.send(all:)`), with one flush, rather than a task and a flush each.
    func send(to registrations: some RandomAccessCollection<Registration> & Sendable, service: String) async -> [Outcome] {
        var outcomes = [Outcome](repeating: .failed, count: registrations.count)
        // The limiter is asked once for the batch's devices (one lock), in the batch's order.
        var candidates: [Int] = []
        var keys: [UInt64] = []
        candidates.reserveCapacity(registrations.count)
        keys.reserveCapacity(registrations.count)
        for (slot, registration) in registrations.enumerated() {
            guard registration.enabled else {
                outcomes[slot] = .unregistered
                continue
            }
            candidates.append(slot)
            keys.append(Self.limiterKey(registration.key))
        }
        let decisions = self.limiter.take(keys)
        var notifications: [PushNotification] = []
        var slots: [Int] = []
        var devices: [UInt64] = []
        notifications.reserveCapacity(candidates.count)
        let expiration = self.expiration
        var ids = RandomUUID.lowercased(count: decisions.count(where: { $0 == .send })).makeIterator()
        for (index, slot) in candidates.enumerated() {
            switch decisions[index] {
            case .coalesced:
                outcomes[slot] = .coalesced
                continue
            case .throttled:
                outcomes[slot] = .throttled
                continue
            case .send: break
            }
            let registration = registrations[registrations.index(registrations.startIndex, offsetBy: slot)]
            devices.append(keys[index])
            slots.append(slot)
            notifications.append(self.notification(to: registration, id: ids.next() ?? RandomUUID.lowercased(), expiration: expiration))
        }
        let results = notifications.isEmpty ? [] : await self.providers.send(all: notifications)
        self.limiter.finished(devices)
        for (slot, result) in zip(slots, results) {
            switch result {
            case .success(.delivered): outcomes[slot] = .delivered
            case .success(.deadToken): outcomes[slot] = .deadToken
            case .success(.rejected), .success(.failed), .failure: outcomes[slot] = .failed
            }
        }
        self.count(outcomes, service: service)
        return outcomes
    }

    /// When a push sent now expires, in seconds since 1970; 0 is at once (`silent.time-to-live: 0`).
    private var expiration: Int64 {
        let seconds = Int64(self.configuration.timeToLive.components.seconds)
        return seconds == 0 ? 0 : Int64(self.wallClock().timeIntervalSince1970) + seconds
    }

    private func notification(to registration: Registration, id: String, expiration: Int64) -> PushNotification {
        var notification = PushNotification(
            id: id,
            device: registration.device,
            payload: registration.device.platform == .fcm ? Self.fcmPayload : Self.apnsPayload
        )
        notification.registration = registration.key
        notification.collapseID = self.configuration.collapseKey
        notification.expiration = expiration
        if registration.device.platform == .fcm {
            notification.priority = self.configuration.fcmPriority == .high ? .immediate : .powerConsiderate
        } else {
            // Background pushes must be priority 5: APNs refuses 10 for them.
            notification.pushType = "background"
            notification.priority = .powerConsiderate
        }
        return notification
    }

    /// One counter update an outcome the batch had, not one a push: each looks its counter up by
    /// its labels.
    private func count(_ outcomes: [Outcome], service: String) {
        let cases = Outcome.allCases
        var tally = [Int](repeating: 0, count: cases.count)
        // Six cases: a scan is cheaper than hashing into a dictionary a push.
        for outcome in outcomes { tally[cases.firstIndex(of: outcome) ?? 0] += 1 }
        for (index, outcome) in cases.enumerated() where tally[index] > 0 {
            self.metrics.pushed(service: service, outcome: outcome, count: tally[index])
        }
    }

    /// 8 bytes of the key's hash: the subject ends in SHA-256 of the `deviceId`.
    static func limiterKey(_ key: RegistrationKey) -> UInt64 {
        key.subject.suffix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
