import Foundation
import HeraldCore
import HeraldDelivery
import HeraldFrontDoor
import Hummingbird
import NIOCore

/// iOS 18 broadcast for operators, behind the API token: an app's channels created, listed,
/// read and deleted on APNs' channel management host, and Live Activity broadcasts to a channel
/// (apns-live-activities.md §2). Herald keeps no channel state: APNs' answer is the answer.
///
/// A channel id is base64 and may hold `/` and `+`, so in a path it is base64url (`-`, `_`, no
/// padding); bodies and answers carry APNs' own spelling as `channel-id` and the path form as
/// `id`.
struct APNSChannelRoutes: Sendable {
    let providers: AppProviders?

    static let maximumBody = 16 * 1024

    func register(on router: some RouterMethods<HeraldRequestContext>) {
        let apps = router.group("apns/v1/apps")
        apps.post(":app/channels") { request, context in try await self.create(request, context) }
        apps.get(":app/channels") { _, context in try await self.list(context) }
        apps.get(":app/channels/:id") { _, context in try await self.read(context) }
        apps.delete(":app/channels/:id") { _, context in try await self.delete(context) }
        apps.post(":app/broadcasts") { request, context in try await self.broadcast(request, context) }
        apps.allowOnly([.get, .post], at: ":app/channels")
        apps.allowOnly([.get, .delete], at: ":app/channels/:id")
        apps.allowOnly([.post], at: ":app/broadcasts")
    }

    private func create(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let (provider, bundleID) = try self.provider(context)
        let fields = try await Self.object(request, context)
        guard let value = fields["message-storage-policy"] else {
            throw APNSChannelError(.badRequest, "message-storage-policy is required: 0 (no message kept) or 1 (the most recent, for up to 8 hours)")
        }
        guard case .number(let number) = value, let policy = APNSChannelRequest.StoragePolicy(rawValue: Int(exactly: number) ?? -1) else {
            throw APNSChannelError(.badRequest, "message-storage-policy must be 0 or 1")
        }
        // Apple's own create body names the push type too; it can only be LiveActivity.
        if let type = fields["push-type"], type != .string("LiveActivity") {
            throw APNSChannelError(.badRequest, "push-type must be LiveActivity, the only kind of channel APNs has")
        }
        if let unknown = fields.keys.first(where: { $0 != "message-storage-policy" && $0 != "push-type" }) {
            throw APNSChannelError(.badRequest, "unknown field \(unknown.prefix(40)); a channel takes message-storage-policy (and push-type)")
        }
        let answer = try await Self.answered(provider.manageChannels(.create(bundleID: bundleID, storagePolicy: policy)))
        guard let channel = answer.headers.first(name: "apns-channel-id"), !channel.isEmpty else {
            throw APNSChannelError(.badGateway, "APNs created the channel but named no apns-channel-id")
        }
        return Self.json(.created, [("channel-id", .string(channel)), ("id", .string(Self.pathForm(channel))), ("message-storage-policy", .number(Double(policy.rawValue)))])
    }

    private func list(_ context: HeraldRequestContext) async throws -> Response {
        let (provider, bundleID) = try self.provider(context)
        let answer = try await Self.answered(provider.manageChannels(.list(bundleID: bundleID)))
        guard let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any], let channels = object["channels"] as? [String] else {
            throw APNSChannelError(.badGateway, "APNs answered the channel list without a channels array")
        }
        let items = channels.map { JSONValue.object([("channel-id", .string($0)), ("id", .string(Self.pathForm($0)))]) }
        return Self.json(.ok, [("channels", .array(items))])
    }

    private func read(_ context: HeraldRequestContext) async throws -> Response {
        let (provider, bundleID) = try self.provider(context)
        let channel = try Self.channelID(context)
        let answer = try await Self.answered(provider.manageChannels(.read(bundleID: bundleID, channelID: channel)))
        guard let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any] else {
            throw APNSChannelError(.badGateway, "APNs answered the channel without a JSON body")
        }
        var fields: [(String, JSONValue)] = [("channel-id", .string(channel)), ("id", .string(Self.pathForm(channel)))]
        if let policy = object["message-storage-policy"] as? NSNumber { fields.append(("message-storage-policy", .number(policy.doubleValue))) }
        if let type = object["push-type"] as? String { fields.append(("push-type", .string(type))) }
        return Self.json(.ok, fields)
    }

    private func delete(_ context: HeraldRequestContext) async throws -> Response {
        let (provider, bundleID) = try self.provider(context)
        let channel = try Self.channelID(context)
        _ = try await Self.answered(provider.manageChannels(.delete(bundleID: bundleID, channelID: channel)))
        return Response(status: .noContent)
    }

    private func broadcast(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let (provider, bundleID) = try self.provider(context)
        let fields = try await Self.object(request, context)
        guard case .string(let given)? = fields["channel-id"], !given.isEmpty else {
            throw APNSChannelError(.badRequest, "channel-id is required: the id a channel was created with")
        }
        guard let channel = Self.apnsForm(given) else {
            throw APNSChannelError(.badRequest, "channel-id is not base64 (or base64url)")
        }
        guard case .object(let payload)? = fields["payload"], case .object(let aps)? = payload.first(where: { $0.0 == "aps" })?.1 else {
            throw APNSChannelError(.badRequest, "payload is required: a Live Activity payload, an object with aps")
        }
        let event = aps.first { $0.0 == "event" }?.1
        guard event == .string("update") || event == .string("end") else {
            throw APNSChannelError(.badRequest, "aps.event must be update or end: a broadcast cannot start a Live Activity")
        }
        guard case .number(let timestamp)? = aps.first(where: { $0.0 == "timestamp" })?.1 else {
            throw APNSChannelError(.badRequest, "aps.timestamp is required: seconds since 1970, the newest update wins")
        }
        // Devices drop an update whose timestamp is far ahead without a word; milliseconds are.
        guard timestamp < 100_000_000_000 else {
            // Any double may arrive here: only one that fits is shown as an integer.
            let shown = Int64(exactly: timestamp.rounded(.towardZero)).map(String.init) ?? "\(timestamp)"
            throw APNSChannelError(.badRequest, "aps.timestamp is in seconds since 1970; \(shown) looks like milliseconds")
        }
        var priority = 10
        if let value = fields["priority"] {
            guard case .number(let number) = value, let exact = Int(exactly: number), APNSChannelRequest.broadcastPriorities.contains(exact) else {
                throw APNSChannelError(.badRequest, "priority must be 10, 5 or 1")
            }
            priority = exact
        }
        var expiration: Int64 = 0
        if let value = fields["expiration"] {
            guard case .number(let number) = value, let exact = Int64(exactly: number), exact >= 0 else {
                throw APNSChannelError(.badRequest, "expiration must be 0 or a UNIX time in seconds")
            }
            expiration = exact
        }
        if let unknown = fields.keys.first(where: { !["channel-id", "payload", "priority", "expiration"].contains($0) }) {
            throw APNSChannelError(.badRequest, "unknown field \(unknown.prefix(40)); a broadcast takes channel-id, payload, priority and expiration")
        }
        let bytes = JSONValue.object(payload).bytes
        guard bytes.count <= APNSChannelRequest.broadcastPayloadLimit else {
            throw APNSChannelError(.contentTooLarge, "payload is \(bytes.count) bytes; APNs allows \(APNSChannelRequest.broadcastPayloadLimit) on a broadcast")
        }
        let request = APNSChannelRequest.broadcast(bundleID: bundleID, channelID: channel, payload: bytes, priority: priority, expiration: expiration)
        let answer = try await Self.answered(provider.broadcast(request))
        var answered: [(String, JSONValue)] = [("apns-request-id", .string(answer.headers.first(name: "apns-request-id") ?? request.requestID))]
        if let unique = answer.headers.first(name: "apns-unique-id") { answered.append(("apns-unique-id", .string(unique))) }
        return Self.json(.ok, answered)
    }

    // MARK: Pieces

    /// The app's APNs provider and the bundle id its channels live under (`apps.<app>.apns.topic`).
    private func provider(_ context: HeraldRequestContext) throws -> (APNSProvider, String) {
        let app = context.parameters.get("app") ?? ""
        guard let provider = self.providers?.provider(app: app, platform: .apns) as? APNSProvider else {
            throw APNSChannelError(.notFound, "no app \(app.prefix(40)) with APNs credentials is configured")
        }
        guard let bundleID = provider.configuration.defaultTopic, !bundleID.isEmpty else {
            throw APNSChannelError(.badRequest, "app \(app.prefix(40)) has no apns.topic: channels belong to a bundle id")
        }
        return (provider, bundleID)
    }

    /// The body's fields (a key given twice keeps its last value, as the JSON reader gives it).
    private static func object(_ request: Request, _ context: HeraldRequestContext) async throws -> [String: JSONValue] {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: Self.maximumBody)
        } catch {
            throw APNSChannelError(.contentTooLarge, "the request body is over \(Self.maximumBody) bytes")
        }
        guard case .object(let pairs)? = try? JSONValue(parsing: Array(body.readableBytesView)) else {
            throw APNSChannelError(.badRequest, "the body must be a JSON object")
        }
        return Dictionary(pairs, uniquingKeysWith: { _, last in last })
    }

    private static func channelID(_ context: HeraldRequestContext) throws -> String {
        guard let id = context.parameters.get("id"), let channel = Self.apnsForm(id) else {
            throw APNSChannelError(.badRequest, "the channel id in the path must be base64url")
        }
        return channel
    }

    /// APNs' answer when it accepted the request; its refusal (or no answer) as an error.
    private static func answered(_ result: DeliveryResult) throws -> HTTP2Response {
        switch result.result {
        case .failure(let refused):
            throw APNSChannelError(.serviceUnavailable, refused.message, retryAfter: 5)
        case .success(.delivered):
            guard let answer = result.answer else { throw APNSChannelError(.badGateway, "APNs gave no answer") }
            return answer
        case .success(let outcome):
            let reason = outcome.failure?.detail ?? outcome.reason
            guard let answer = result.answer else {
                throw APNSChannelError(.badGateway, "APNs did not answer: \(reason)", retryAfter: 5)
            }
            // APNs' 403s are about Herald's credentials and its 404/405 about Herald's requests,
            // not the caller's: those are a bad gateway, with APNs' reason.
            let status: HTTPResponse.Status
            switch answer.status {
            case 400, 413: status = HTTPResponse.Status(code: answer.status)
            case 429: status = .tooManyRequests
            default: status = .badGateway
            }
            let retryAfter = status == .tooManyRequests || status == .badGateway ? 5 : nil
            throw APNSChannelError(status, "APNs refused it: \(answer.status) \(reason)", reason: APNSResponse(answer).reason?.rawValue, retryAfter: retryAfter)
        }
    }

    private static func json(_ status: HTTPResponse.Status, _ fields: [(String, JSONValue)]) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONValue.object(fields).bytes)))
    }

    /// base64url without padding, for a path.
    static func pathForm(_ channel: String) -> String {
        String(channel.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 }.filter { $0 != "=" })
    }

    /// APNs' base64 from either spelling; `nil` when it is neither.
    static func apnsForm(_ given: String) -> String? {
        var text = String(given.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while text.utf8.count % 4 != 0 { text += "=" }
        guard text.utf8.count <= 256, Data(base64Encoded: text) != nil else { return nil }
        return text
    }
}
