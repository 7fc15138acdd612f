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
    /// `:method`, `:path` and the content fields, in the order they are sent.
    public let fields: HTTP2Fields

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
        try self.init(notification, projectID: projectID, message: FCMMessage(notification, now: now))
    }

    /// The request for `notification`'s device with `message`, which was made from a push of the
    /// same payload and options (`FCMMessage.fits`): a request's pushes share one, so the
    /// payload is read and written once, not once a device.
    init(_ notification: PushNotification, projectID: String, message: FCMMessage) throws(FCMRequestError) {
        let target: (name: String, value: String)?
        let token = notification.device.token
        if !token.isEmpty {
            guard token.utf8.count <= 4096, token.utf8.allSatisfy(Self.isTokenByte) else {
                throw FCMRequestError("message.token", "the registration token is not a valid FCM registration token")
            }
            guard !message.hasCondition else {
                throw FCMRequestError("message.condition", "a message has exactly one target; the device already gives a token")
            }
            target = ("token", token)
        } else if var topic = notification.device.topic, !topic.isEmpty {
            // The legacy API's `/topics/` prefix, which senders still write, is dropped as the
            // Firebase Admin SDKs drop it.
            if topic.hasPrefix("/topics/") { topic.removeFirst("/topics/".count) }
            // FCM's topic names: `[a-zA-Z0-9-_.~%]+`; anything else FCM refuses, so it is refused
            // here at once, with FCM's code.
            guard !topic.isEmpty, topic.utf8.count <= Self.maximumTopicLength, topic.utf8.allSatisfy(Self.isTopicByte) else {
                throw FCMRequestError("message.topic", "the topic name must be at most \(Self.maximumTopicLength) of a-z, A-Z, 0-9, -, _, ., ~ and %")
            }
            guard !message.hasCondition else {
                throw FCMRequestError("message.condition", "a message has exactly one target; the device already gives a topic")
            }
            target = ("topic", topic)
        } else {
            guard message.hasCondition else {
                throw FCMRequestError("message", "no target: the device has no token or topic and the payload no condition")
            }
            target = nil
        }
        // FCM's limit is on what is delivered; the target does not count against it.
        let limit = target?.name == "token" ? Self.messageLimit : Self.topicMessageLimit
        guard message.contentSize <= limit else {
            throw FCMRequestError("message", "the message is \(message.contentSize) bytes; FCM allows \(limit)")
        }
        // The target first, then the message's own members.
        var body = Array(#"{"message":{"#.utf8)
        body.reserveCapacity(body.count + message.members.count + token.utf8.count + 16)
        if let target {
            // Token and topic bytes were checked above: none needs escaping in a JSON string.
            let quote = UInt8(ascii: "\"")
            body.append(quote)
            body += target.name.utf8
            body += [quote, UInt8(ascii: ":"), quote]
            body += target.value.utf8
            body.append(quote)
            if !message.members.isEmpty { body.append(UInt8(ascii: ",")) }
        }
        body += message.members
        body += [UInt8(ascii: "}"), UInt8(ascii: "}")]
        self.body = body
        self.path = "/v1/projects/\(projectID)/messages:send"
        var fields = HTTP2Fields(reservingBytes: 128 + self.path.utf8.count)
        fields.add(name: ":method", value: "POST")
        fields.add(name: ":path", value: self.path)
        fields.add(name: "content-type", value: "application/json; charset=UTF-8")
        fields.add(name: "content-length", value: String(body.count), indexable: false)
        self.fields = fields
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
