import Foundation
import HeraldCluster
import HeraldCore
import HeraldFrontDoor
import HeraldStore
import Hummingbird
import NIOCore

/// A stateful front door in a folder of its own: devices registered by name in its own
/// registration scope (written at the name's owner, forwarded there once in a cluster), pages
/// deduplicated by id in its own marker namespace, and refusals that render themselves.
/// `PagerFrontDoorTests` registers it with one line.
struct PagerFrontDoor: FrontDoor {
    static let internalPath = "/internal/v1/pager/devices/"

    let registry: Registry
    let markers: MessageMarkers
    let routing: PartitionRouting
    let pages: MessageMarkers.Namespace

    static func make(configuration: PagerConfiguration, context: FrontDoorContext) throws -> PagerFrontDoor? {
        guard configuration.enabled else { return nil }
        return PagerFrontDoor(registry: context.registry, markers: context.markers, routing: context.routing, pages: configuration.pageMarkers)
    }

    func registerRoutes(on router: some RouterMethods<HeraldRequestContext>) {
        router.put("/pager/v1/devices/:name") { request, context in
            try await self.register(request, name: try Self.name(context), forwardedFrom: nil)
        }
        router.get("/pager/v1/devices/:name") { _, context in
            let key = try Self.key(try Self.name(context))
            guard let registration = try self.registry.record(for: key)?.registration else {
                throw PagerError(status: .notFound, message: "no device is registered by that name")
            }
            return registration.device.token
        }
        router.post("/pager/v1/pages/:id") { _, context in
            let id = Array((context.parameters.get("id") ?? "").utf8)
            guard try await self.markers.insert(id, in: self.pages, now: UInt64(Date().timeIntervalSince1970)) else {
                throw PagerError(status: .conflict, message: "page \(String(decoding: id, as: UTF8.self)) was already accepted")
            }
            return HTTPResponse.Status.accepted
        }
    }

    func registerInternalRoutes(on router: some RouterMethods<HeraldRequestContext>) {
        // Forwarded requests are POSTs, whatever the client's method was.
        router.post(RouterPath(stringLiteral: Self.internalPath + ":name")) { request, context in
            try await self.register(request, name: try Self.name(context), forwardedFrom: context.forwardedFrom)
        }
    }

    /// Writes the device at the name's owner: here, or forwarded once.
    private func register(_ request: Request, name: String, forwardedFrom: String?) async throws(PagerError) -> HTTPResponse.Status {
        let token: String
        do {
            token = String(buffer: try await request.body.collect(upTo: 4096))
        } catch {
            throw PagerError(status: .contentTooLarge, message: "a device token is at most 4096 bytes")
        }
        let key = try Self.key(name)
        return try await self.routing.atOwner(
            of: PartitionKey(key),
            forwardedFrom: forwardedFrom,
            forwarding: { PartitionRouting.Forwarding(path: Self.internalPath + name, body: Array(token.utf8), contentType: "text/plain") },
            relay: { answer throws(PagerError) in
                guard answer.status == 204 else { throw PagerError(status: .init(code: answer.status), message: String(decoding: answer.body, as: UTF8.self)) }
                return .noContent
            },
            here: { () async throws(PagerError) in
                let registration = Registration(key: key, version: UInt64(Date().timeIntervalSince1970 * 1_000_000), device: Device(platform: .apns, token: token))
                do {
                    try await self.registry.submitCatchingUp(.register(registration))
                } catch {
                    throw PagerError(status: .serviceUnavailable, message: "the registration was not written: \(error)")
                }
                return .noContent
            }
        )
    }

    static func name(_ context: HeraldRequestContext) throws(PagerError) -> String {
        guard let name = context.parameters.get("name"), !name.isEmpty, name.utf8.count <= 64, name.allSatisfy({ $0.isLetter || $0.isNumber }) else {
            throw PagerError(status: .badRequest, message: "a device name is 1 to 64 letters and digits")
        }
        return name
    }

    static func key(_ name: String) throws(PagerError) -> RegistrationKey {
        do {
            return try RegistrationKey(scope: .pager, subject: Array(name.utf8), installationID: "")
        } catch {
            throw PagerError(status: .badRequest, message: "\(error)")
        }
    }

    var summary: FrontDoorSummary { FrontDoorSummary("front door: example pager PUT /pager/v1/devices/:name") }
}
