import Foundation
public import HeraldFrontDoor
import HeraldCore
public import HeraldDelivery
import HTTPTypes
public import Hummingbird

/// The silent-sync HTTP surface: NotifyMe's registration paths (public: apps send no credential;
/// the `deviceId` itself guards a registration), and the "sync now" and broadcast API behind the
/// node's API token.
public struct SilentRoutes<Context: RequestContext>: Sendable {
    let sync: SilentSync
    /// Registrations a minute per client address, on the public paths only: a forwarded one
    /// was counted where its client sent it.
    let registrationLimiter: SenderRateLimiter?

    public init(sync: SilentSync, registrationLimiter: SenderRateLimiter? = nil) {
        self.sync = sync
        self.registrationLimiter = registrationLimiter
    }

    public func registerPublic(on router: some RouterMethods<Context>) {
        for service in self.sync.services.values.sorted(by: { $0.name < $1.name }) {
            for version in ["v3", "v1"] {
                router.post(RouterPath(stringLiteral: "\(service.pathPrefix)/\(version)/register")) { request, context in
                    try self.charge(context, service: service)
                    return try await self.register(request, service: service, forwardedFrom: nil)
                }
                router.allowOnly([.post], at: RouterPath(stringLiteral: "\(service.pathPrefix)/\(version)/register"))
            }
        }
    }

    public func registerAPI(on router: some RouterMethods<Context>) {
        router.post("/silent/v1/sync") { request, _ in
            try await self.syncNow(request)
        }
        router.allowOnly([.post], at: "/silent/v1/sync")
        router.post("/silent/v1/broadcasts") { request, _ in
            try await self.startBroadcast(request)
        }
        router.allowOnly([.post], at: "/silent/v1/broadcasts")
        router.get("/silent/v1/broadcasts/:id") { _, context in
            let id = context.parameters.get("id") ?? ""
            guard let broadcast = await self.sync.broadcasts.broadcast(id: id) else { throw SilentError.unknownBroadcast(id) }
            return Self.json(200, broadcast.publicJSON)
        }
        router.delete("/silent/v1/broadcasts/:id") { _, context in
            let id = context.parameters.get("id") ?? ""
            guard let broadcast = try await self.sync.broadcasts.cancel(id: id) else { throw SilentError.unknownBroadcast(id) }
            return Self.json(200, broadcast.publicJSON)
        }
        router.allowOnly([.get, .delete], at: "/silent/v1/broadcasts/:id")
    }

    public func registerInternal(on router: some RouterMethods<Context>) where Context: ForwardingRequestContext {
        router.allowOnly([.post], at: RouterPath(stringLiteral: SilentSync.internalRegisterPath + ":service"))
        router.post(RouterPath(stringLiteral: SilentSync.internalRegisterPath + ":service")) { request, context in
            guard let service = try? self.sync.service(named: context.parameters.get("service") ?? "") else {
                throw SilentError.unknownForwardedService
            }
            return try await self.register(request, service: service, forwardedFrom: context.forwardedFrom ?? "another node")
        }
    }

    /// Takes one registration from the client's bucket, before the body is read.
    private func charge(_ context: Context, service: SilentService) throws(SilentError) {
        guard let limiter = self.registrationLimiter, let client = ClientAddress.of(context), let seconds = limiter.take(client) else { return }
        self.sync.metrics.rateLimited(service: service.name)
        throw .rateLimited("this address sent more than \(limiter.perMinute) registrations a minute (silent.client-rate-limit); register again in \(seconds) s", retryAfter: seconds)
    }

    private func register(_ request: Request, service: SilentService, forwardedFrom: String?) async throws(SilentError) -> Response {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: 16 << 10)
        } catch {
            throw SilentError.tooLarge("the body is larger than a registration can be (16 KiB)")
        }
        let registration = try SilentRegistrationRequest(body: Array(buffer: body), contentType: request.headers[.contentType])
        try await self.sync.register(registration, service: service, forwardedFrom: forwardedFrom)
        // NotifyMe's backend answers 200 with an empty body.
        return Response(status: .ok)
    }

    struct SyncRequest: Decodable {
        var service: String?
        var deviceIDs: [String]

        enum CodingKeys: String, CodingKey {
            case service
            case deviceIDs = "device_ids"
        }
    }

    private func syncNow(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 1 << 20)
        guard let sync = try? JSONDecoder().decode(SyncRequest.self, from: Data(body.readableBytesView)) else {
            throw SilentError.malformed(#"the body must be {"service": "<name>", "device_ids": ["<deviceId>", …]}"#)
        }
        guard !sync.deviceIDs.isEmpty, sync.deviceIDs.count <= SilentSync.maximumDevicesPerRequest else {
            throw SilentError.malformed("device_ids must list 1 to \(SilentSync.maximumDevicesPerRequest) devices; use a broadcast for all")
        }
        let service = try self.sync.service(named: sync.service ?? SilentService.defaultName)
        let counts = await self.sync.sync(service: service, deviceIDs: sync.deviceIDs)
        var fields = SilentSender.Outcome.allCases.map { #""\#($0.rawValue)":\#(counts[$0] ?? 0)"# }
        fields.sort()
        return Self.json(200, Array("{\(fields.joined(separator: ","))}".utf8))
    }

    private func startBroadcast(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 1 << 16)
        // Only an empty body means the default service: a typo must not wake every device of it.
        var name = SilentService.defaultName
        if body.readableBytes > 0 {
            guard let fields = try? JSONDecoder().decode([String: String].self, from: Data(body.readableBytesView)), let given = fields["service"], fields.count == 1 else {
                throw SilentError.malformed(#"the body must be empty (the default service) or {"service": "<name>"}"#)
            }
            name = given
        }
        let service = try self.sync.service(named: name)
        let broadcast = try await self.sync.broadcasts.start(service: service.name)
        var response = Self.json(202, broadcast.publicJSON)
        response.headers[.location] = "/silent/v1/broadcasts/\(broadcast.id)"
        return response
    }

    static func json(_ status: Int, _ body: [UInt8]) -> Response {
        Response(status: .init(code: status), headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
