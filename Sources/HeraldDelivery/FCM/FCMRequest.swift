public import Foundation
public import HeraldCore

/// A notification checked against FCM's rules and laid out as a `messages:send` request
/// (fcm.md §2–3), minus the `authorization` header, which the endpoint adds with its current
/// access token.
///
/// The notification's payload holds the `message` fields other than the target; the device gives
/// the target (its token, else its topic, else the payload's `condition`), and the notification's
/// priority, expiration and collapse id fill `android.priority`, `ttl` and `collapse_key` unless
/// the payload sets them itself.
public struct FCMRequest: Sendable {
    public let path: String
    public let body: [UInt8]

    /// Most messages may carry 4096 bytes, topic messages 2048 (fcm.md §3).
    static let messageLimit = 4096
    static let topicMessageLimit = 2048
    static let maximumTopicLength = 900
    /// Four weeks, FCM's longest and default time to live.
    static let maximumTTL: Int64 = 2_419_200
    static let reservedDataKeys: Set<String> = ["from", "message_type"]
    static let reservedDataPrefixes = ["google.", "gcm."]

    /// Checks `notification` and builds the request; a message FCM would refuse is refused here,
    /// with the error code FCM would give. `now` (UNIX seconds) turns the expiration into a TTL.
    public init(_ notification: PushNotification, projectID: String, now: Int64 = Int64(Date().timeIntervalSince1970)) throws(FCMRequestError) {
        var message: [(String, JSONValue)]
        if notification.payload.isEmpty {
            message = []
        } else {
            guard case .object(let fields)? = try? JSONValue(parsing: notification.payload) else {
                throw FCMRequestError("message", "the payload must be a JSON object of FCM message fields")
            }
            message = fields
        }
        for target in ["token", "topic"] where message.contains(where: { $0.0 == target }) {
            throw FCMRequestError("message.\(target)", "the target comes from the device, not the payload")
        }
        let isTopic: Bool
        let token = notification.device.token
        if !token.isEmpty {
            guard token.utf8.count <= 4096, token.utf8.allSatisfy(Self.isTokenByte) else {
                throw FCMRequestError("message.token", "the registration token is not a valid FCM registration token")
            }
            guard !message.contains(where: { $0.0 == "condition" }) else {
                throw FCMRequestError("message.condition", "a message has exactly one target; the device already gives a token")
            }
            message.insert(("token", .string(token)), at: 0)
            isTopic = false
        } else if var topic = notification.device.topic, !topic.isEmpty {
            // The legacy API's `/topics/` prefix, which senders still write, is dropped as the
            // Firebase Admin SDKs drop it.
            if topic.hasPrefix("/topics/") { topic.removeFirst("/topics/".count) }
            // FCM's topic names: `[a-zA-Z0-9-_.~%]+`; anything else FCM refuses, so it is refused
            // here at once, with FCM's code.
            guard !topic.isEmpty, topic.utf8.count <= Self.maximumTopicLength, topic.utf8.allSatisfy(Self.isTopicByte) else {
                throw FCMRequestError("message.topic", "the topic name must be at most \(Self.maximumTopicLength) of a-z, A-Z, 0-9, -, _, ., ~ and %")
            }
            guard !message.contains(where: { $0.0 == "condition" }) else {
                throw FCMRequestError("message.condition", "a message has exactly one target; the device already gives a topic")
            }
            message.insert(("topic", .string(topic)), at: 0)
            isTopic = true
        } else {
            guard message.contains(where: { $0.0 == "condition" }) else {
                throw FCMRequestError("message", "no target: the device has no token or topic and the payload no condition")
            }
            isTopic = true
        }

        try Self.checkData(message.first { $0.0 == "data" }?.1, field: "message.data")
        var android: [(String, JSONValue)] = []
        if let value = message.first(where: { $0.0 == "android" })?.1 {
            guard case .object(let fields) = value else { throw FCMRequestError("message.android", "must be an object") }
            android = fields
            try Self.checkData(android.first { $0.0 == "data" }?.1, field: "message.android.data")
        }
        if let priority = notification.priority, !android.contains(where: { $0.0 == "priority" }) {
            // FCM has no "never wake" level: both lower APNs levels become NORMAL.
            android.append(("priority", .string(priority == .immediate ? "HIGH" : "NORMAL")))
        }
        if let expiration = notification.expiration, !android.contains(where: { $0.0 == "ttl" }) {
            guard expiration >= 0 else {
                throw FCMRequestError("message.android.ttl", "expiration must be a UNIX time in seconds, or 0")
            }
            // APNs' expiration 0 means "now or never", which is FCM's ttl "0s" too. Compared
            // before subtracting, so no value can overflow.
            let ttl: Int64 = expiration == 0 || expiration <= now ? 0 : min(expiration - max(now, 0), Self.maximumTTL)
            android.append(("ttl", .string("\(ttl)s")))
        }
        if let collapseID = notification.collapseID, !android.contains(where: { $0.0 == "collapse_key" || $0.0 == "collapseKey" }) {
            android.append(("collapse_key", .string(collapseID)))
        }
        message.removeAll { $0.0 == "android" }
        if !android.isEmpty { message.append(("android", .object(android))) }

        let messageBytes = JSONValue.object(message).bytes
        // FCM's limit is on what is delivered; the target does not count against it.
        let contentBytes = Self.sizeWithoutTargets(of: message, serialized: messageBytes.count)
        let limit = isTopic ? Self.topicMessageLimit : Self.messageLimit
        guard contentBytes <= limit else {
            throw FCMRequestError("message", "the message is \(contentBytes) bytes; FCM allows \(limit)")
        }
        var body = Array(#"{"message":"#.utf8)
        body += messageBytes
        body.append(UInt8(ascii: "}"))
        self.body = body
        self.path = "/v1/projects/\(projectID)/messages:send"
    }

    /// The size `message` would have serialized without its target members, from its serialized
    /// size: each target's member and one comma fewer, without writing the rest of the message
    /// again.
    static func sizeWithoutTargets(of message: [(String, JSONValue)], serialized: Int) -> Int {
        var size = serialized
        var targets = 0
        for member in message where member.0 == "token" || member.0 == "topic" || member.0 == "condition" {
            // `{"name":value}` less its braces.
            size -= JSONValue.object([member]).bytes.count - 2
            targets += 1
        }
        guard targets > 0 else { return size }
        let commas = max(message.count - 1, 0) - max(message.count - targets - 1, 0)
        return size - commas
    }

    /// The header block of this request for `authority`.
    public func headerBlock(authority: String, authorization: String?) -> HTTP2Fields {
        var block = HTTP2Fields(reservingBytes: 160 + (authorization?.utf8.count ?? 0) + self.path.utf8.count)
        block.add(name: ":method", value: "POST")
        block.add(name: ":scheme", value: "https")
        block.add(name: ":path", value: self.path)
        block.add(name: ":authority", value: authority)
        if let authorization { block.add(name: "authorization", value: authorization, indexable: false) }
        block.add(name: "content-type", value: "application/json; charset=UTF-8")
        block.add(name: "content-length", value: String(self.body.count), indexable: false)
        return block
    }

    /// FCM data maps carry strings only, and some keys are FCM's own (fcm.md §3).
    static func checkData(_ data: JSONValue?, field: String) throws(FCMRequestError) {
        guard let data else { return }
        guard case .object(let pairs) = data else { throw FCMRequestError(field, "must be an object of strings") }
        for (index, (key, value)) in pairs.enumerated() {
            guard case .string = value else {
                throw FCMRequestError("\(field)[\(index)].value", "the value of \"\(key)\" must be a string")
            }
            if Self.reservedDataKeys.contains(key) || Self.reservedDataPrefixes.contains(where: { key.hasPrefix($0) }) {
                throw FCMRequestError("\(field)[\(index)].key", "\"\(key)\" is a reserved key")
            }
        }
    }

    static func isTopicByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"), UInt8(ascii: "%"):
            true
        default:
            false
        }
    }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: ":"):
            true
        default:
            false
        }
    }
}

/// Why a notification was refused before sending: FCM would have answered `INVALID_ARGUMENT`
/// about `field`.
public struct FCMRequestError: CodedError, ProviderRequestError {
    public enum Code: String, Sendable {
        /// What FCM answers such a request.
        case invalidArgument = "INVALID_ARGUMENT"
    }

    public let field: String
    public let message: String

    public var code: Code { .invalidArgument }

    init(_ field: String, _ message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "INVALID_ARGUMENT: \(self.field): \(self.message)" }

    /// The outcome of a notification refused this way; FCM's own code, so callers see one name.
    public var outcome: DeliveryOutcome { .rejected(reason: FCMErrorCode.invalidArgument.rawValue) }
}
