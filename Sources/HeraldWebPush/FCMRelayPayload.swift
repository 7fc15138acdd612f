import HeraldCore

/// The FCM variant's message fields: the same `p`, `k`, `s` and `x` as the APNs payload, as FCM
/// `data` strings, with the priority, time to live and collapse key set here so the whole
/// message's size is known before it is sent.
public enum FCMRelayPayload {
    /// FCM's limit on a message's content (fcm.md §3).
    public static let limit = 4096
    /// FCM's longest time to live, four weeks; `webpush.maximum-ttl` may allow more for APNs.
    static let maximumTTL = 2_419_200

    public static func encode(_ message: RelayMessage, extra: String?) -> [UInt8] {
        var data: [(String, JSONValue)] = []
        if case .aesgcm(let senderKey, let salt) = message.encoding {
            data.append(("k", .string(Z85Extended.encode(senderKey))))
            data.append(("s", .string(Z85Extended.encode(salt))))
        }
        data.append(("p", .string(Z85Extended.encode(message.body))))
        if let extra { data.append(("x", .string(extra))) }
        return Self.message(data: data, for: message)
    }

    /// The `reduced` size policy's message: no `p`, `"oversize":"1"`.
    public static func reduced(_ message: RelayMessage, extra: String?) -> [UInt8] {
        var data: [(String, JSONValue)] = [("oversize", .string("1"))]
        if let extra { data.append(("x", .string(extra))) }
        return Self.message(data: data, for: message)
    }

    private static func message(data: [(String, JSONValue)], for message: RelayMessage) -> [UInt8] {
        var android: [(String, JSONValue)] = [
            ("priority", .string(message.urgency.isPowerConsiderate ? "NORMAL" : "HIGH")),
            ("ttl", .string("\(min(message.ttl, Self.maximumTTL))s")),
        ]
        if let topic = message.topic { android.append(("collapse_key", .string(topic))) }
        return JSONValue.object([("data", .object(data)), ("android", .object(android))]).bytes
    }
}

extension RelayMessage.Urgency {
    /// `very-low` and `low` wait for the device's power (APNs priority 5, FCM NORMAL).
    public var isPowerConsiderate: Bool { self == .veryLow || self == .low }
}
