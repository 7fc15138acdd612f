import Crypto
import Foundation
import HeraldCluster
public import HeraldCore
public import HeraldDelivery
public import HeraldStore
public import Logging

/// Silent-sync registrations in the registry: one per app-instance token (`deviceId`) per
/// service, and one `deviceId` per device token. Keyed by a hash of the `deviceId`, which is a
/// bearer secret: it is never stored, logged or forwarded beyond the registration's owner.
public struct SilentRegistrations: Sendable {
    /// What a registration did, for the metric and the logs.
    public enum Action: String, Sendable {
        case registered
        case updated
        case unchanged
        case unregistered
        /// An unregister for a `deviceId` that had nothing.
        case absent
    }

    let registry: Registry
    let deadTokens: (any DeadTokenHandler)?
    let logger: Logger

    public init(registry: Registry, deadTokens: (any DeadTokenHandler)?, logger: Logger) {
        self.registry = registry
        self.deadTokens = deadTokens
        self.logger = logger
    }

    /// The registry key of `deviceID` in `service`: the service's name, then SHA-256 of the
    /// `deviceId`, so one service's registrations are adjacent and a broadcast walks them alone.
    public static func key(service: String, deviceID: String) -> RegistrationKey {
        let subject = Self.subjectPrefix(service: service) + Array(SHA256.hash(data: Array(deviceID.utf8)))
        // A valid service name (at most 63 bytes) and a 32-byte hash are always a valid key.
        guard let key = try? RegistrationKey(scope: .silentSync, subject: subject, installationID: "") else {
            preconditionFailure("a silent-sync key of \(subject.count) bytes was refused")
        }
        return key
    }

    static func subjectPrefix(service: String) -> [UInt8] {
        Array(service.utf8) + [0]
    }

    /// The stored-key prefix of every registration of `service`.
    public static func keyPrefix(service: String) -> [UInt8] {
        [RegistrationScope.silentSync.rawValue, UInt8(truncatingIfNeeded: service.utf8.count + 33)] + Self.subjectPrefix(service: service)
    }

    /// Applies `request` for `service`, on the node that owns its partition.
    func apply(_ request: SilentRegistrationRequest, service: SilentService, appID: String?, now: Date) async throws -> Action {
        let key = Self.key(service: service.name, deviceID: request.deviceID)
        let record = try self.registry.record(for: key)
        // Versions only grow: the clock's microseconds, or one above the stored one if the clock
        // went back.
        let version = max((record?.version ?? 0) + 1, UInt64(max(now.timeIntervalSince1970, 0) * 1_000_000))
        guard let token = request.token else {
            guard record?.registration != nil else { return .absent }
            try await self.submit(.unregister(key, version: version))
            return .unregistered
        }
        guard let appID else { throw SilentError.notServed("this service does not deliver to \(request.pushType.rawValue) devices") }
        let device = Device(platform: request.pushType == .and ? .fcm : .apns, token: token, app: appID)
        // The token moved here from another install: that one stops getting pushes.
        for other in try self.registry.view.keys(holdingToken: token, app: appID, scope: .silentSync) where other != key {
            await self.evict(other, token: token, device: device)
        }
        if let existing = record?.registration, existing.enabled, existing.device == device {
            return .unchanged
        }
        let registration = Registration(key: key, version: version, device: device, attributes: [request.pushType.attribute])
        try await self.submit(.register(registration))
        return record?.registration == nil ? .registered : .updated
    }

    /// Disables `key`, whose device token a newer install now holds, through its owner.
    private func evict(_ key: RegistrationKey, token: String, device: Device) async {
        guard let deadTokens = self.deadTokens else { return }
        var notification = PushNotification(id: RandomUUID.lowercased(), device: device, payload: [])
        notification.registration = key
        await deadTokens.tokenIsDead(notification, reason: "the device token moved to another app instance")
    }

    private func submit(_ command: RegistryCommand) async throws {
        try await self.registry.submitCatchingUp(command)
    }
}

extension SilentRegistrationRequest.PushType {
    /// Kept with the registration, so what the app sent can be told apart from the app it reached.
    var attribute: UInt8 {
        switch self {
        case .ios: 0
        case .and: 1
        case .iod: 2
        }
    }
}
