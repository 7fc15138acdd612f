import Crypto
import Foundation
import HeraldCluster
public import HeraldCore
import HeraldDelivery
import HeraldStore
import Logging

/// The notification-sender role of RFC 0699 and RFC 0734 for a mediator: device info kept per
/// connection in the registry (through the command log, at the partition's owner in a cluster),
/// answers to `set-device-info`, `get-device-info` and Discover Features, and the §5 push when
/// the mediator says a message waits.
public struct AriesService: Sendable {
    public static let internalMessagesPath = "/internal/v1/aries/messages/"
    public static let internalNotifyPath = "/internal/v1/aries/notify"
    /// Longest connection id taken (an id, not a document).
    public static let maximumConnectionIDLength = 200
    /// Message ids and tags together one notify may name.
    public static let maximumMessagesPerNotify = 30

    let configuration: AriesConfiguration
    let registry: Registry
    let providers: AppProviders
    let markers: MessageMarkers
    let routing: PartitionRouting
    let metrics: AriesMetrics
    let logger: Logger
    let wallClock: @Sendable () -> Date

    /// The protocols this node serves: those whose app is configured.
    var protocols: [AriesProtocol] {
        [self.configuration.apnsApp.map { _ in .apns }, self.configuration.fcmApp.map { _ in .fcm }].compactMap { $0 }
    }

    /// Device info of `connection` for `kind`: the connection id is hashed, so the registry
    /// never holds the mediator's identifier.
    public static func key(connection: String, protocol kind: AriesProtocol) -> RegistrationKey {
        let subject = Array(SHA256.hash(data: Array(connection.utf8)))
        guard let key = try? RegistrationKey(scope: .aries, subject: subject, installationID: kind == .apns ? "apns" : "fcm") else {
            preconditionFailure("a 32-byte subject and a short id were refused")
        }
        return key
    }

    static func checkConnection(_ connection: String) throws(AriesError) {
        guard !connection.isEmpty, connection.utf8.count <= Self.maximumConnectionIDLength else {
            throw AriesError.invalidConnection("the connection id must be 1 to \(Self.maximumConnectionIDLength) bytes")
        }
    }

    // MARK: Messages

    /// Handles one plaintext DIDComm message the wallet sent on `connection`; a message it refuses
    /// with no DIDComm answer is thrown.
    public func handle(_ body: [UInt8], connection: String, forwardedFrom: String? = nil) async throws(AriesError) -> AriesAnswer {
        do throws(AriesError) {
            try Self.checkConnection(connection)
            guard case .object(let fields)? = (try? JSONDecoder().decode(JSONValue.self, from: Data(body))) else {
                throw AriesError.invalidMessage("the body is not a DIDComm plaintext message (a JSON object)")
            }
            let message = Dictionary(fields, uniquingKeysWith: { first, _ in first })
            guard case .string(let typeText)? = message["@type"] else { throw AriesError.invalidMessage("the message has no @type") }
            guard case .string(let id)? = message["@id"], !id.isEmpty else { throw AriesError.invalidMessage("the message has no @id") }
            // Wallets need not ack, but one that does (in either spelling, RFC 0015's own or the
            // adopted one) gets nothing back: acks are never answered.
            if AriesMessageType.isAck(typeText) {
                self.metrics.message(type: "ack", result: "ignored")
                return AriesAnswer(status: 204, body: [])
            }
            guard let type = AriesMessageType(typeText) else {
                throw AriesError.invalidMessage("'\(typeText.prefix(120))' is not a message of push-notifications-apns/1.x, push-notifications-fcm/1.x or discover-features/1.x")
            }
            var thread = id
            if case .object(let threadFields)? = message["~thread"], case .string(let thid)? = threadFields.first(where: { $0.0 == "thid" })?.1 {
                thread = thid
            }
            switch (type.protocol, type.name) {
            case (.apns, "set-device-info"), (.fcm, "set-device-info"):
                return try await self.owned(body, connection: connection, forwardedFrom: forwardedFrom, path: Self.internalMessagesPath + Self.pathComponent(connection)) { () async throws(AriesError) in
                    try await self.setDeviceInfo(message, kind: type.protocol, connection: connection, thread: thread)
                }
            case (.apns, "get-device-info"), (.fcm, "get-device-info"):
                // At the owner, which has applied every set it answered.
                return try await self.owned(body, connection: connection, forwardedFrom: forwardedFrom, path: Self.internalMessagesPath + Self.pathComponent(connection)) {
                    self.getDeviceInfo(kind: type.protocol, connection: connection, thread: thread)
                }
            case (.discoverFeatures, "query"):
                guard case .string(let query)? = message["query"] else { throw AriesError.invalidMessage("a discover-features query needs a query") }
                self.metrics.message(type: "query", result: "disclose")
                return AriesAnswer(status: 200, body: AriesReply.disclose(thread: thread, query: query, protocols: self.protocols))
            default:
                throw AriesError.invalidMessage("Herald takes set-device-info, get-device-info and discover-features query, not \(type.name.prefix(60))")
            }
        } catch {
            // A store failing under a valid message is no refusal of the message.
            if error.code != .notStored { self.metrics.message(type: "invalid", result: "refused") }
            throw error
        }
    }

    private func setDeviceInfo(_ message: [String: JSONValue], kind: AriesProtocol, connection: String, thread: String) async throws(AriesError) -> AriesAnswer {
        func problem(_ code: String, _ text: String) -> AriesAnswer {
            self.metrics.message(type: "set-device-info", result: code)
            return AriesAnswer(status: 200, body: AriesReply.problem(kind, thread: thread, code: code, text))
        }
        guard let appID = kind == .apns ? self.configuration.apnsApp : self.configuration.fcmApp else {
            return problem("not-supported", "this mediator does not push through \(kind.rawValue)")
        }
        let token: String?
        switch message["device_token"] {
        case .string(let text)?: token = text
        case .null?: token = nil
        case nil: return problem("missing-value", "set-device-info needs device_token (null to remove the device info)")
        default: return problem("invalid-value", "device_token must be a string or null")
        }
        // AFJ 0.2 sends FCM device info without device_platform: missing is "unknown", not null.
        var platform: String?
        var platformIsNull = false
        if kind == .fcm {
            switch message["device_platform"] {
            case .string(let text)?: platform = text
            case .null?: platformIsNull = true
            case nil: break
            default: return problem("invalid-value", "device_platform must be a string or null")
            }
        }
        if kind == .fcm, token != nil && platformIsNull || token == nil && platform != nil {
            return problem("missing-value", "device_token and device_platform must both be set or both be null")
        }
        let key = Self.key(connection: connection, protocol: kind)
        do {
            let record = try self.registry.record(for: key)
            let version = max((record?.version ?? 0) + 1, UInt64(max(self.wallClock().timeIntervalSince1970, 0) * 1_000_000))
            if let token {
                guard let checked = Self.checked(token, kind: kind) else {
                    return problem("invalid-value", "device_token is not \(kind == .apns ? "an APNs device token (hex)" : "an FCM registration token")")
                }
                let device = Device(platform: kind == .apns ? .apns : .fcm, token: checked, app: appID)
                let attributes: [UInt8] = platform.map { [1] + Array($0.utf8.prefix(200)) } ?? [0]
                try await self.submit(.register(Registration(key: key, version: version, device: device, attributes: attributes)))
                self.metrics.message(type: "set-device-info", result: "set")
            } else if record?.registration != nil {
                try await self.submit(.unregister(key, version: version))
                self.metrics.message(type: "set-device-info", result: "removed")
            } else {
                self.metrics.message(type: "set-device-info", result: "removed")
            }
        } catch {
            self.logger.error("Aries device info not stored", metadata: ["registration": "\(key)", "error": "\(error)"])
            throw AriesError.notStored
        }
        return AriesAnswer(status: 200, body: AriesReply.ack(kind, thread: thread))
    }

    private func getDeviceInfo(kind: AriesProtocol, connection: String, thread: String) -> AriesAnswer {
        let key = Self.key(connection: connection, protocol: kind)
        guard let registration = (try? self.registry.record(for: key))?.flatMap(\.registration), registration.enabled else {
            self.metrics.message(type: "get-device-info", result: "not-registered")
            return AriesAnswer(
                status: 200,
                body: AriesReply.problem(kind, thread: thread, code: "not-registered-for-push-notifications", "this connection has no device info for \(kind.rawValue)")
            )
        }
        let platform = registration.attributes.first == 1 ? String(decoding: registration.attributes.dropFirst(), as: UTF8.self) : nil
        self.metrics.message(type: "get-device-info", result: "device-info")
        return AriesAnswer(status: 200, body: AriesReply.deviceInfo(kind, thread: thread, token: registration.device.token, platform: platform))
    }

    /// The device token as stored, or `nil` when APNs or FCM would refuse it.
    public static func checked(_ token: String, kind: AriesProtocol) -> String? {
        let bytes = token.utf8
        switch kind {
        case .apns:
            let hex = bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0 | 0x20) }
            return (2...200).contains(bytes.count) && bytes.count % 2 == 0 && hex ? token.lowercased() : nil
        default:
            let valid = bytes.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ":")
            }
            return (1...4096).contains(bytes.count) && valid ? token : nil
        }
    }

    // MARK: Notify

    /// What the mediator sends when messages wait for a connection.
    public struct NotifyRequest: Decodable, Sendable {
        var connectionID: String
        var messageID: String?
        var messageTag: String?
        var messageIDs: [String]?
        var messageTags: [String]?

        enum CodingKeys: String, CodingKey {
            case connectionID = "connection_id"
            case messageID = "message_id"
            case messageTag = "message_tag"
            case messageIDs = "message_ids"
            case messageTags = "message_tags"
        }

        public var ids: [String] { (self.messageIDs ?? []) + (self.messageID.map { [$0] } ?? []) }
        public var tags: [String] { (self.messageTags ?? []) + (self.messageTag.map { [$0] } ?? []) }
    }

    /// Pushes the §5 payload to the connection's devices, once per `message_id`.
    public func notify(_ body: [UInt8], forwardedFrom: String? = nil) async throws(AriesError) -> AriesAnswer {
        guard let request = try? JSONDecoder().decode(NotifyRequest.self, from: Data(body)) else {
            throw AriesError.invalidNotify(#"the body must be {"connection_id": "…", "message_id": "…", "message_tag": "…"} (ids and tags optional, or as lists)"#)
        }
        // FCM carries the lists in 4 KB of data: a longer batch would be refused on every retry.
        guard request.ids.count + request.tags.count <= Self.maximumMessagesPerNotify,
            (request.ids + request.tags).allSatisfy({ $0.utf8.count <= 100 })
        else {
            throw AriesError.invalidNotify("at most \(Self.maximumMessagesPerNotify) message ids and tags, each at most 100 bytes, in one notify")
        }
        try Self.checkConnection(request.connectionID)
        return try await self.owned(body, connection: request.connectionID, forwardedFrom: forwardedFrom, path: Self.internalNotifyPath) {
            await self.push(request)
        }
    }

    private func push(_ request: NotifyRequest) async -> AriesAnswer {
        let subject = Self.key(connection: request.connectionID, protocol: .apns).subject
        let devices = ((try? self.registry.registrations(scope: .aries, subject: subject)) ?? []).filter(\.enabled)
        guard !devices.isEmpty else {
            self.metrics.notified(result: "not_registered")
            return Self.json(200, [("result", .string("not_registered"))])
        }
        let now = UInt64(max(self.wallClock().timeIntervalSince1970, 0))
        var fresh: [[UInt8]] = []
        for id in request.ids {
            let marker = Array(SHA256.hash(data: Array((request.connectionID + "\u{0}" + id).utf8)))
            if (try? await self.markers.insert(marker, in: self.configuration.messageMarkers, now: now)) != false { fresh.append(marker) }
        }
        if !request.ids.isEmpty, fresh.isEmpty {
            self.metrics.notified(result: "duplicate")
            return Self.json(200, [("result", .string("duplicate"))])
        }
        var results: [JSONValue] = []
        var anyDelivered = false
        for registration in devices {
            let kind: AriesProtocol = registration.device.platform == .fcm ? .fcm : .apns
            let outcome: DeliveryOutcome
            do {
                outcome = try await self.providers.send(self.notification(for: registration, kind: kind, request: request))
            } catch {
                outcome = .failed(DeliveryFailure(.overloaded, "\(error)"))
            }
            anyDelivered = anyDelivered || outcome == .delivered
            self.metrics.notified(result: outcome.result)
            results.append(.object([("protocol", .string(kind.rawValue)), ("result", .string(outcome.result)), ("reason", .string(outcome.reason))]))
        }
        if !anyDelivered {
            // Nothing reached a device: the mediator may notify again and be pushed.
            for marker in fresh { try? await self.markers.remove(marker, in: self.configuration.messageMarkers) }
        }
        return Self.json(200, [("result", .string(anyDelivered ? "delivered" : "not_delivered")), ("pushes", .array(results))])
    }

    func notification(for registration: Registration, kind: AriesProtocol, request: NotifyRequest) -> PushNotification {
        let background = self.configuration.style == .background
        var payload: [(String, JSONValue)]
        if kind == .apns {
            let aps: JSONValue =
                background ? .object([("content-available", .number(1))]) : .object([("alert", .string(self.configuration.alertText)), ("sound", .string("default"))])
            payload = [("aps", aps), ("@type", .string("https://didcomm.org/push-notifications-apns"))]
            // RFC 0699: single strings; the first of a batch.
            if let tag = request.tags.first { payload.append(("message_tag", .string(tag))) }
            if let id = request.ids.first { payload.append(("message_id", .string(id))) }
        } else {
            // RFC 0734: lists, which FCM's string-only data carries as JSON text.
            var data: [(String, JSONValue)] = [("@type", .string("https://didcomm.org/push-notifications-fcm"))]
            if !request.tags.isEmpty { data.append(("message_tags", .string(String(decoding: JSONValue.array(request.tags.map(JSONValue.string)).bytes, as: UTF8.self)))) }
            if !request.ids.isEmpty { data.append(("message_ids", .string(String(decoding: JSONValue.array(request.ids.map(JSONValue.string)).bytes, as: UTF8.self)))) }
            payload = [("data", .object(data))]
        }
        var notification = PushNotification(id: RandomUUID.lowercased(), device: registration.device, payload: JSONValue.object(payload).bytes)
        notification.registration = registration.key
        notification.priority = background ? .powerConsiderate : .immediate
        if kind == .apns { notification.pushType = background ? "background" : "alert" }
        return notification
    }

    // MARK: Cluster

    /// Runs `work` here when this node owns the connection's partition, else has the owner run
    /// it and relays its answer.
    private func owned(
        _ body: [UInt8],
        connection: String,
        forwardedFrom: String?,
        path: String,
        _ work: () async throws(AriesError) -> AriesAnswer
    ) async throws(AriesError) -> AriesAnswer {
        try await self.routing.atOwner(
            of: PartitionKey(Self.key(connection: connection, protocol: .apns)),
            forwardedFrom: forwardedFrom,
            forwarding: { PartitionRouting.Forwarding(path: path, body: body) },
            relay: { answer throws(AriesError) in AriesAnswer(status: answer.status, body: answer.body) },
            here: { () async throws(AriesError) in try await work() }
        )
    }

    /// RFC 3986's unreserved characters stay; everything else, non-ASCII letters included, is
    /// percent-encoded.
    static func pathComponent(_ connection: String) -> String {
        connection.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? connection
    }

    private func submit(_ command: RegistryCommand) async throws {
        try await self.registry.submitCatchingUp(command)
    }

    static func json(_ status: Int, _ fields: [(String, JSONValue)]) -> AriesAnswer {
        AriesAnswer(status: status, body: JSONValue.object(fields).bytes)
    }
}
