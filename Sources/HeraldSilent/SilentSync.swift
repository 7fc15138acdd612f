import Foundation
import HeraldCluster
import HeraldCore
import HeraldDelivery
import HeraldStore
import Logging

/// The silent-sync front door's work apart from HTTP: registrations (at their partition's owner
/// in a cluster), "sync now" sends and broadcasts.
public struct SilentSync: Sendable {
    public static let internalRegisterPath = "/internal/v1/silent/register/"
    /// Device ids one sync request may name.
    public static let maximumDevicesPerRequest = 1000

    let services: [String: SilentService]
    let providers: AppProviders
    let registrations: SilentRegistrations
    let view: any RegistryView
    let sender: SilentSender
    public let broadcasts: SilentBroadcasts
    let metrics: SilentMetrics
    let routing: PartitionRouting
    let logger: Logger
    let wallClock: @Sendable () -> Date

    /// The app a registration of `type` reaches in `service`, if the service delivers to it.
    func app(for type: SilentRegistrationRequest.PushType, in service: SilentService) -> String? {
        switch type {
        case .ios: self.providers.provider(app: service.app, platform: .apns) != nil ? service.app : nil
        case .and: self.providers.provider(app: service.app, platform: .fcm) != nil ? service.app : nil
        case .iod: service.sandboxApp.flatMap { self.providers.provider(app: $0, platform: .apns) != nil ? $0 : nil }
        }
    }

    func service(named name: String) throws(SilentError) -> SilentService {
        guard let service = self.services[name] else { throw .unknownService(name) }
        return service
    }

    /// Registers, moves or unregisters, here when this node owns the registration's partition,
    /// else at its owner. `forwardedFrom` is the node that forwarded it here.
    func register(_ request: SilentRegistrationRequest, service: SilentService, forwardedFrom: String? = nil) async throws(SilentError) {
        let appID = self.app(for: request.pushType, in: service)
        if request.token != nil, appID == nil {
            throw .notServed("this service does not deliver to \(request.pushType.rawValue) devices (no credentials for them)")
        }
        let key = SilentRegistrations.key(service: service.name, deviceID: request.deviceID)
        try await self.routing.atOwner(
            of: PartitionKey(key),
            forwardedFrom: forwardedFrom,
            forwarding: { PartitionRouting.Forwarding(path: Self.internalRegisterPath + service.name, body: request.json) },
            relay: { answer throws(SilentError) in
                // The owner's own refusal, passed on as it gave it.
                guard (200..<300).contains(answer.status) else { throw .relayed(answer.status, String(decoding: answer.body.prefix(500), as: UTF8.self)) }
            },
            here: { () async throws(SilentError) in try await self.registerHere(request, key: key, service: service, appID: appID) }
        )
    }

    private func registerHere(_ request: SilentRegistrationRequest, key: RegistrationKey, service: SilentService, appID: String?) async throws(SilentError) {
        do {
            let action = try await self.registrations.apply(request, service: service, appID: appID, now: self.wallClock())
            self.metrics.registered(service: service.name, action: action.rawValue)
            self.logger.debug("silent registration", metadata: ["service": "\(service.name)", "registration": "\(Self.logID(key))", "action": "\(action.rawValue)"])
        } catch let error as SilentError {
            throw error
        } catch {
            self.logger.error("silent registration not stored", metadata: ["registration": "\(Self.logID(key))", "error": "\(error)"])
            throw .unavailable("the registration could not be stored now")
        }
    }

    /// What logs call a registration: 12 hex digits of the hash its key ends in (the key's own
    /// description shows the service name, the same for all).
    static func logID(_ key: RegistrationKey) -> String {
        key.subject.suffix(6).map { String(format: "%02x", $0) }.joined()
    }

    /// Sends a silent push to each of `deviceIDs` of `service`, together; counts by outcome.
    func sync(service: SilentService, deviceIDs: [String]) async -> [SilentSender.Outcome: Int] {
        var counts: [SilentSender.Outcome: Int] = [:]
        var registrations: [Registration] = []
        for deviceID in Set(deviceIDs) {
            let key = SilentRegistrations.key(service: service.name, deviceID: deviceID)
            if let registration = (try? self.view.record(for: key))?.flatMap(\.registration) {
                registrations.append(registration)
            } else {
                counts[.unregistered, default: 0] += 1
            }
        }
        for outcome in await self.sender.send(to: registrations, service: service.name) { counts[outcome, default: 0] += 1 }
        return counts
    }
}
