public import HeraldCore

/// A notification checked against APNs' rules and laid out as the request APNs receives, minus
/// the `authorization` header, which the connection adds with its current provider token.
public struct APNSRequest: Sendable {
    public let notificationID: String
    /// `:method`, `:path` and the regular fields (no authorization), in the order they are sent.
    public let fields: HTTP2Fields
    public let body: [UInt8]

    /// `/3/device/<token>`.
    public var path: String { self.fields.first(name: ":path") ?? "" }

    /// The regular fields as names and values.
    public var headers: [(String, String)] { self.fields.fields.filter { !$0.name.hasPrefix(":") }.map { ($0.name, $0.value) } }

    /// Checks `notification` and builds the request; a notification APNs would refuse is refused
    /// here, before it costs a request, with the reason APNs would give.
    /// Hex digits of the longest device token taken (100 bytes, what Apple reserves).
    static let maximumTokenLength = 200
    /// Bundle ids are short; this is generous.
    static let maximumTopicLength = 255

    public init(_ notification: PushNotification, defaultTopic: String?) throws(APNSRequestError) {
        let token = notification.device.token
        // Tokens are 32 bytes today; Apple reserves up to 100. A longer one would become a
        // `:path` no HTTP/2 peer takes, retried until the deadline.
        guard (2...Self.maximumTokenLength).contains(token.utf8.count), token.utf8.count % 2 == 0, Self.isHex(token) else {
            throw APNSRequestError(.badDeviceToken, "device token must be an even number of hex digits, at most \(Self.maximumTokenLength), got \(token.utf8.count) characters")
        }
        let pushType: APNSPushType
        if let name = notification.pushType {
            guard let known = APNSPushType(rawValue: name) else {
                throw APNSRequestError(.invalidPushType, "unknown APNs push type \(name)")
            }
            pushType = known
        } else {
            pushType = .alert
        }
        guard var topic = notification.device.topic ?? defaultTopic, !topic.isEmpty else {
            throw APNSRequestError(.missingTopic, "no APNs topic: the device has none and the app sets no default")
        }
        // APNs wants the push type's suffix on the bundle id (`.voip`, `.push-type.widgets`, …);
        // callers usually give the bare bundle id.
        if !pushType.topicSuffix.isEmpty, !topic.hasSuffix(pushType.topicSuffix) {
            topic += pushType.topicSuffix
        }
        // It becomes a header: CR, LF, NUL or a huge value would be refused by the HTTP/2 layer,
        // not answered by APNs, and retried.
        guard topic.utf8.count <= Self.maximumTopicLength, topic.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw APNSRequestError(.badTopic, "topic must be at most \(Self.maximumTopicLength) visible ASCII characters (a bundle id)")
        }
        guard Self.isCanonicalUUID(notification.id) else {
            throw APNSRequestError(.badMessageId, "notification id must be a canonical UUID")
        }
        if let collapseID = notification.collapseID {
            guard collapseID.utf8.count <= 64 else {
                throw APNSRequestError(.badCollapseId, "collapse id is \(collapseID.utf8.count) bytes; APNs allows 64")
            }
            // RFC 9113 §8.2.1: no control characters in a field value; UTF-8 is fine.
            guard collapseID.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else {
                throw APNSRequestError(.badCollapseId, "collapse id must hold no control characters (it becomes a header)")
            }
        }
        if let expiration = notification.expiration, expiration < 0 {
            throw APNSRequestError(.badExpirationDate, "expiration must be a UNIX time in seconds, or 0")
        }
        guard !notification.payload.isEmpty else {
            throw APNSRequestError(.payloadEmpty, "payload is empty")
        }
        guard notification.payload.count <= pushType.payloadLimit else {
            throw APNSRequestError(
                .payloadTooLarge,
                "payload is \(notification.payload.count) bytes; APNs allows \(pushType.payloadLimit) for \(pushType.rawValue)"
            )
        }

        var fields = HTTP2Fields(reservingBytes: 340)
        fields.add(name: ":method", value: "POST")
        // Values unique to one request would only churn APNs' small HPACK table (apns.md §2).
        fields.add(name: ":path", value: "/3/device/", token, indexable: false)
        fields.add(name: "apns-push-type", value: pushType.rawValue)
        fields.add(name: "apns-topic", value: topic)
        fields.add(name: "apns-id", value: notification.id, indexable: false)
        // Background pushes must use priority 5 (10 is an error), so the type decides for them.
        let priority: String? =
            pushType == .background
            ? "5"
            : notification.priority.map {
                switch $0 {
                case .immediate: "10"
                case .powerConsiderate: "5"
                case .powerFirst: "1"
                }
            }
        if let priority { fields.add(name: "apns-priority", value: priority) }
        if let expiration = notification.expiration { fields.add(name: "apns-expiration", value: String(expiration), indexable: false) }
        if let collapseID = notification.collapseID { fields.add(name: "apns-collapse-id", value: collapseID, indexable: false) }
        fields.add(name: "content-type", value: "application/json")
        fields.add(name: "content-length", value: String(notification.payload.count), indexable: false)

        self.notificationID = notification.id
        self.fields = fields
        self.body = notification.payload
    }

    /// A provider token is the same for every request of the next 20 to 60 minutes: NIOHTTP2
    /// sends it once and an index after.
    public static var indexesAuthorization: Bool { true }

    static func isHex(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in bytes.allSatisfy(\.isHexDigit) }
    }

    static func isCanonicalUUID(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            let dash = UInt8(ascii: "-")
            guard bytes.count == 36, bytes[8] == dash, bytes[13] == dash, bytes[18] == dash, bytes[23] == dash else { return false }
            for index in 0..<36 where index != 8 && index != 13 && index != 18 && index != 23 {
                guard bytes[index].isHexDigit else { return false }
            }
            return true
        }
    }
}

/// Why a notification was refused before sending, with the APNs reason it would have earned.
public struct APNSRequestError: CodedError, ProviderRequestError {
    public let reason: APNSReason
    public let message: String

    /// The APNs reason the request would have earned is the code.
    public var code: APNSReason { self.reason }

    init(_ reason: APNSReason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(self.reason.rawValue): \(self.message)" }

    /// The outcome of a notification refused this way.
    public var outcome: DeliveryOutcome {
        self.reason == .badDeviceToken ? .deadToken(reason: self.reason.rawValue) : .rejected(reason: self.reason.rawValue)
    }
}

extension UInt8 {
    var isHexDigit: Bool {
        // Setting bit 5 lower-cases a letter and leaves digits as they are.
        let lower = self | 0x20
        return (self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9")) || (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "f"))
    }
}
