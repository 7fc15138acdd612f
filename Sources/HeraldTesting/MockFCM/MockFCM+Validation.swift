import Foundation
import HeraldCore

extension MockFCM {
    /// A send request that passed every check, with what the record keeps of it.
    struct SendRequest: Sendable, Hashable {
        var validateOnly: Bool
        var target: AcceptedMessage.Target
        var message: [UInt8]
        var data: [String: String]
        var androidPriority: String?
        var androidTTL: String?
        var androidCollapseKey: String?
    }

    /// A broken rule of the send request: `field` in the `BadRequest` detail (nil for faults of
    /// the body as a whole) and a description saying what is wrong.
    struct Violation: Error, Hashable {
        var field: String?
        var description: String
    }

    static let messageKeys: Set<String> = [
        "name", "data", "notification", "android", "webpush", "apns", "fcm_options", "fcmOptions", "token", "topic",
        "condition",
    ]
    static let androidKeys: Set<String> = [
        "collapse_key", "collapseKey", "priority", "ttl", "restricted_package_name", "restrictedPackageName", "data",
        "notification", "fcm_options", "fcmOptions", "direct_boot_ok", "directBootOk", "bandwidth_constrained_ok",
        "bandwidthConstrainedOk", "restricted_satellite_ok", "restrictedSatelliteOk",
    ]
    static let maximumTTLSeconds = 2_419_200
    static let maximumMessageSize = 4096
    static let maximumTopicMessageSize = 2048
    static let maximumTokenLength = 4096
    static let invalidToken = "The registration token is not a valid FCM registration token"

    /// Checks the body of `POST …/messages:send` in the order of fcm.md §6 items 6–9; the first
    /// broken rule is thrown. Credentials and project are checked before, by the route.
    static func parseSend(contentType: String?, body: [UInt8]) throws(Violation) -> SendRequest {
        guard let contentType, Self.mediaType(contentType) == "application/json" else {
            throw Violation(description: "Content-Type must be application/json, got \(contentType.map { "\"\($0)\"" } ?? "none").")
        }
        guard case .object(let request)? = try? JSONDecoder().decode(JSONValue.self, from: Data(body)) else {
            throw Violation(description: "Invalid JSON payload received. The body must be one JSON object.")
        }
        for (key, _) in request where !["message", "validate_only", "validateOnly"].contains(key) {
            throw Violation(description: "Invalid JSON payload received. Unknown name \"\(key)\": Cannot find field.")
        }
        var validateOnly = false
        if case let (name, value)? = Self.member(request, "validate_only", "validateOnly") {
            guard case .bool(let flag) = value else {
                throw Violation(field: name, description: "Invalid value at '\(name)' (TYPE_BOOL): expected true or false, got \(Self.kind(value)).")
            }
            validateOnly = flag
        }
        guard case let (_, messageValue)? = Self.member(request, "message") else {
            throw Violation(field: "message", description: "The request has no message.")
        }
        guard case .object(let message) = messageValue else {
            throw Violation(field: "message", description: "Invalid value at 'message': expected an object, got \(Self.kind(messageValue)).")
        }
        for (key, _) in message where !Self.messageKeys.contains(key) {
            throw Violation(field: "message", description: "Invalid JSON payload received. Unknown name \"\(key)\" at 'message': Cannot find field.")
        }

        let target = try Self.target(message)
        var data: [(String, String)] = []
        if case let (_, value)? = Self.member(message, "data") {
            data = try Self.stringMap(value, field: "message.data")
        }
        if case let (_, notification)? = Self.member(message, "notification") {
            try Self.notification(notification, field: "message.notification")
        }
        var android = AndroidFields()
        if case let (_, value)? = Self.member(message, "android") {
            android = try Self.android(value)
        }
        if case let (_, apns)? = Self.member(message, "apns") {
            try Self.apns(apns)
        }
        if case let (_, webpush)? = Self.member(message, "webpush") {
            try Self.object(webpush, field: "message.webpush")
        }
        if case let (name, options)? = Self.member(message, "fcm_options", "fcmOptions") {
            try Self.fcmOptions(options, field: "message.\(name)")
        }

        let serialized = JSONValue.object(message).bytes
        // FCM's limit is on what is delivered, so the target does not count: a token of the
        // longest legal length must not make an empty message too big.
        let payloadSize = JSONValue.object(message.filter { !["token", "topic", "condition"].contains($0.0) }).bytes.count
        let limit: Int
        // A condition selects topics, so its messages are topic messages.
        switch target {
        case .topic, .condition: limit = Self.maximumTopicMessageSize
        case .token: limit = Self.maximumMessageSize
        }
        guard payloadSize <= limit else {
            throw Violation(
                field: "message",
                description: "Message is too big: \(payloadSize) bytes as compact JSON without its target; the limit is "
                    + "\(limit) bytes (\(Self.maximumMessageSize), or \(Self.maximumTopicMessageSize) for topic messages)."
            )
        }
        return SendRequest(
            validateOnly: validateOnly,
            target: target,
            message: serialized,
            data: Dictionary(data, uniquingKeysWith: { _, last in last }),
            androidPriority: android.priority,
            androidTTL: android.ttl,
            androidCollapseKey: android.collapseKey
        )
    }

    // MARK: Target

    /// Exactly one of `token`, `topic`, `condition`, each a string in its format.
    static func target(_ message: [(String, JSONValue)]) throws(Violation) -> AcceptedMessage.Target {
        let set = ["token", "topic", "condition"].filter { name in message.contains { $0.0 == name } }
        guard set.count == 1, let name = set.first, case let (_, value)? = Self.member(message, name) else {
            let found = set.isEmpty ? "none is" : "\(set.joined(separator: " and ")) are"
            throw Violation(field: "message", description: "Exactly one of message.token, message.topic or message.condition must be set; \(found).")
        }
        guard case .string(let text) = value else {
            throw Violation(field: "message.\(name)", description: "Invalid value at 'message.\(name)' (TYPE_STRING): expected a string, got \(Self.kind(value)).")
        }
        switch name {
        case "token":
            guard Self.isWellFormedToken(text) else {
                throw Violation(
                    field: "message.token",
                    description: "\(Self.invalidToken): it must be 1 to \(Self.maximumTokenLength) characters of A–Z, a–z, 0–9, '_', ':' and '-'."
                )
            }
            return .token(text)
        case "topic":
            guard Self.isWellFormedTopic(text) else {
                throw Violation(
                    field: "message.topic",
                    description: "Invalid topic name \"\(text.prefix(100))\": it must be A–Z, a–z, 0–9 and '-_.~%', optionally after \"/topics/\"."
                )
            }
            return .topic(text)
        default:
            guard !text.isEmpty else {
                throw Violation(field: "message.condition", description: "Invalid condition: the condition expression is empty.")
            }
            return .condition(text)
        }
    }

    static func isWellFormedToken(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.count <= Self.maximumTokenLength
            && token.utf8.allSatisfy { byte in
                Self.isAlphanumeric(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "-")
            }
    }

    /// The Admin SDKs' topic pattern; FCM takes the name with or without `/topics/`.
    static func isWellFormedTopic(_ topic: String) -> Bool {
        let name = topic.hasPrefix("/topics/") ? topic.dropFirst("/topics/".count) : Substring(topic)
        return !name.isEmpty && name.utf8.allSatisfy { byte in Self.isAlphanumeric(byte) || "-_.~%".utf8.contains(byte) }
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
    }

    // MARK: Parts of the message

    /// A `map<string, string>` such as `data`: every value a string, no reserved key (fcm.md §3).
    /// The index in a field name (`message.data[0].value`) counts entries in decoder order; the
    /// description names the key, which is what a reader needs.
    static func stringMap(_ value: JSONValue, field: String, reservedKeys: Bool = true) throws(Violation) -> [(String, String)] {
        guard case .object(let pairs) = value else {
            throw Violation(field: field, description: "Invalid value at '\(field)': expected a map of string to string, got \(Self.kind(value)).")
        }
        var map: [(String, String)] = []
        for (index, (key, value)) in pairs.enumerated() {
            guard case .string(let text) = value else {
                throw Violation(
                    field: "\(field)[\(index)].value",
                    description: "Invalid value at '\(field)[\(index)].value' (TYPE_STRING), \(Self.describe(value)): "
                        + "values of \(field) must be strings, and key \"\(key)\" has \(Self.kind(value))."
                )
            }
            if reservedKeys, Self.isReservedDataKey(key) {
                throw Violation(
                    field: "\(field)[\(index)].key",
                    description: "Invalid data payload key \"\(key)\" in \(field): \"from\", \"message_type\" and keys starting "
                        + "\"google.\" or \"gcm.\" are reserved."
                )
            }
            map.append((key, text))
        }
        return map
    }

    static func isReservedDataKey(_ key: String) -> Bool {
        key == "from" || key == "message_type" || key.hasPrefix("google.") || key.hasPrefix("gcm.")
    }

    struct AndroidFields {
        var priority: String?
        var ttl: String?
        var collapseKey: String?
    }

    /// `message.android`: AndroidConfig of fcm.md §3.1, in snake_case or lowerCamelCase.
    static func android(_ value: JSONValue) throws(Violation) -> AndroidFields {
        guard case .object(let android) = value else {
            throw Violation(field: "message.android", description: "Invalid value at 'message.android': expected an object, got \(Self.kind(value)).")
        }
        for (key, _) in android where !Self.androidKeys.contains(key) {
            throw Violation(
                field: "message.android",
                description: "Invalid JSON payload received. Unknown name \"\(key)\" at 'message.android': Cannot find field."
            )
        }
        var fields = AndroidFields()
        if case let (_, value)? = Self.member(android, "priority") {
            let text = try Self.string(value, field: "message.android.priority")
            guard ["NORMAL", "HIGH"].contains(text.uppercased()) else {
                throw Violation(
                    field: "message.android.priority",
                    description: "Invalid value at 'message.android.priority' (type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority), "
                        + "\"\(text.prefix(100))\": it must be NORMAL or HIGH."
                )
            }
            fields.priority = text
        }
        if case let (_, value)? = Self.member(android, "ttl") {
            let text = try Self.string(value, field: "message.android.ttl")
            guard let seconds = Self.durationSeconds(text) else {
                throw Violation(
                    field: "message.android.ttl",
                    description: "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), \"\(text.prefix(100))\": "
                        + "a duration is decimal seconds with up to 9 fraction digits and the suffix 's', e.g. \"3600s\" or \"3.5s\"."
                )
            }
            guard seconds.whole < Self.maximumTTLSeconds || (seconds.whole == Self.maximumTTLSeconds && !seconds.hasFraction) else {
                throw Violation(
                    field: "message.android.ttl",
                    description: "The TTL \"\(text.prefix(100))\" is over the maximum of \(Self.maximumTTLSeconds)s (4 weeks)."
                )
            }
            fields.ttl = text
        }
        if case let (name, value)? = Self.member(android, "collapse_key", "collapseKey") {
            fields.collapseKey = try Self.string(value, field: "message.android.\(name)")
        }
        if case let (name, value)? = Self.member(android, "restricted_package_name", "restrictedPackageName") {
            _ = try Self.string(value, field: "message.android.\(name)")
        }
        for names in [("direct_boot_ok", "directBootOk"), ("bandwidth_constrained_ok", "bandwidthConstrainedOk"), ("restricted_satellite_ok", "restrictedSatelliteOk")] {
            if case let (name, value)? = Self.member(android, names.0, names.1) {
                guard case .bool = value else {
                    throw Violation(
                        field: "message.android.\(name)",
                        description: "Invalid value at 'message.android.\(name)' (TYPE_BOOL): expected true or false, got \(Self.kind(value))."
                    )
                }
            }
        }
        if case let (_, value)? = Self.member(android, "data") {
            _ = try Self.stringMap(value, field: "message.android.data")
        }
        if case let (_, value)? = Self.member(android, "notification") {
            try Self.object(value, field: "message.android.notification")
        }
        if case let (name, value)? = Self.member(android, "fcm_options", "fcmOptions") {
            try Self.fcmOptions(value, field: "message.android.\(name)")
        }
        return fields
    }

    /// A protobuf `Duration` in JSON: `^\d+(\.\d{1,9})?s$`, as whole seconds and whether a
    /// fraction follows; nil when malformed.
    static func durationSeconds(_ text: String) -> (whole: Int, hasFraction: Bool)? {
        guard text.hasSuffix("s") else { return nil }
        let number = text.dropLast()
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let isDigit: (Character) -> Bool = { $0.isASCII && $0.isNumber }
        guard let wholePart = parts.first, !wholePart.isEmpty, wholePart.allSatisfy(isDigit) else { return nil }
        var hasFraction = false
        if parts.count == 2 {
            guard (1...9).contains(parts[1].count), parts[1].allSatisfy(isDigit) else { return nil }
            hasFraction = parts[1].contains { $0 != "0" }
        }
        // Longer than any TTL allowed: report it as too long, not as malformed.
        let whole = wholePart.count > 12 ? Int.max : Int(wholePart) ?? Int.max
        return (whole, hasFraction)
    }

    /// `notification`: an object whose `title`, `body` and `image` are strings.
    static func notification(_ value: JSONValue, field: String) throws(Violation) {
        guard case .object(let notification) = value else {
            throw Violation(field: field, description: "Invalid value at '\(field)': expected an object, got \(Self.kind(value)).")
        }
        for name in ["title", "body", "image"] {
            if case let (_, value)? = Self.member(notification, name) { _ = try Self.string(value, field: "\(field).\(name)") }
        }
    }

    /// `apns`: `headers` a map of strings (the APNs headers FCM forwards), `payload` an object.
    static func apns(_ value: JSONValue) throws(Violation) {
        guard case .object(let apns) = value else {
            throw Violation(field: "message.apns", description: "Invalid value at 'message.apns': expected an object, got \(Self.kind(value)).")
        }
        if case let (_, headers)? = Self.member(apns, "headers") {
            _ = try Self.stringMap(headers, field: "message.apns.headers", reservedKeys: false)
        }
        if case let (_, payload)? = Self.member(apns, "payload") {
            try Self.object(payload, field: "message.apns.payload")
        }
    }

    static func fcmOptions(_ value: JSONValue, field: String) throws(Violation) {
        guard case .object(let options) = value else {
            throw Violation(field: field, description: "Invalid value at '\(field)': expected an object, got \(Self.kind(value)).")
        }
        if case let (name, label)? = Self.member(options, "analytics_label", "analyticsLabel") {
            _ = try Self.string(label, field: "\(field).\(name)")
        }
    }

    static func object(_ value: JSONValue, field: String) throws(Violation) {
        guard case .object = value else {
            throw Violation(field: field, description: "Invalid value at '\(field)': expected an object, got \(Self.kind(value)).")
        }
    }

    static func string(_ value: JSONValue, field: String) throws(Violation) -> String {
        guard case .string(let text) = value else {
            throw Violation(field: field, description: "Invalid value at '\(field)' (TYPE_STRING): expected a string, got \(Self.kind(value)).")
        }
        return text
    }

    // MARK: JSON helpers

    /// The last member named any of `names`: proto3 JSON takes both spellings of a field, and a
    /// repeated key's last value wins (fcm.md §2).
    static func member(_ object: [(String, JSONValue)], _ names: String...) -> (name: String, value: JSONValue)? {
        object.last { names.contains($0.0) }.map { (name: $0.0, value: $0.1) }
    }

    static func kind(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    static func describe(_ value: JSONValue) -> String {
        MockFCMAssertion.describe(value)
    }
}
