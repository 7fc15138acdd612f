import Crypto
import Foundation
public import HeraldCore

/// One push as a push service takes it (RFC 8030 §5): the subscription's endpoint, the
/// notification's payload encrypted for the subscription (RFC 8291 `aes128gcm`), and `TTL`,
/// `Urgency` and `Topic` from its expiry, priority and collapse id.
public struct WebPushRequest: Sendable {
    /// RFC 8030 §7.2: push services must take bodies of 4096 bytes; `aes128gcm`'s header (86
    /// bytes), the padding delimiter and the tag leave this much for the payload.
    public static let maximumPayload = 4096 - 86 - 1 - 16
    /// The longest `TTL` sent: 28 days, what autopush and FCM keep a message at most; a push
    /// service may refuse more.
    public static let maximumTTL: Int64 = 28 * 86_400

    public var subscription: WebPushSubscription
    public var body: [UInt8]
    public var ttl: Int64
    public var urgency: String
    public var topic: String?

    /// Refuses, as `rejected`, a token that is no subscription and a payload too large; `now` is
    /// the UNIX time `TTL` counts from.
    public init(_ notification: PushNotification, defaultTTL: Int64, now: Int64) throws(WebPushRequestError) {
        do {
            self.subscription = try WebPushSubscription(token: notification.device.token)
        } catch {
            throw WebPushRequestError(DeliveryFailure(.badSubscription, error.description))
        }
        guard notification.payload.count <= Self.maximumPayload else {
            throw WebPushRequestError(DeliveryFailure(
                .payloadTooLarge,
                "the payload is \(notification.payload.count) bytes; a Web Push message carries at most \(Self.maximumPayload)"
            ))
        }
        do {
            let receiver = try P256.KeyAgreement.PublicKey(x963Representation: self.subscription.receiverKey)
            self.body = try WebPushEncryption.aes128gcm(notification.payload, receiver: receiver, authSecret: self.subscription.authSecret).body
        } catch {
            throw WebPushRequestError(DeliveryFailure(.badSubscription, "cannot encrypt for keys.p256dh: \(error)"))
        }
        // An expiry in the past is "now or never", as APNs' 0: the push service tries once.
        // Compared before subtracting: a client's expiry may be any 64-bit integer.
        let ttl = notification.expiration.map { $0 <= now ? 0 : $0 - now } ?? defaultTTL
        self.ttl = min(max(ttl, 0), Self.maximumTTL)
        self.urgency = Self.urgency(for: notification.priority)
        self.topic = notification.collapseID.map(Self.topic)
    }

    /// The HTTP headers besides `Authorization`.
    public var headers: [(String, String)] {
        var headers = [
            ("Content-Type", "application/octet-stream"),
            ("Content-Encoding", "aes128gcm"),
            ("TTL", String(self.ttl)),
            ("Urgency", self.urgency),
        ]
        if let topic = self.topic { headers.append(("Topic", topic)) }
        return headers
    }

    /// RFC 8030 §5.3: `high` wakes a device on low battery, as APNs 10 and FCM HIGH do; `low`
    /// waits for power or Wi-Fi.
    public static func urgency(for priority: PushNotification.Priority?) -> String {
        switch priority {
        case .immediate: "high"
        case .powerFirst: "low"
        case .powerConsiderate, nil: "normal"
        }
    }

    /// RFC 8030 §5.4: at most 32 characters of the base64url alphabet. A collapse id that is not
    /// one is hashed into one, so equal ids still replace each other.
    static func topic(_ collapseID: String) -> String {
        if (1...32).contains(collapseID.utf8.count), collapseID.utf8.allSatisfy(Base64URL.isAlphabet) { return collapseID }
        return String(Base64URL.encode(SHA256.hash(data: Array(collapseID.utf8))).prefix(32))
    }
}

/// A notification that cannot be a Web Push request; it ends `rejected` with this failure.
public struct WebPushRequestError: Error, Sendable {
    public var failure: DeliveryFailure

    init(_ failure: DeliveryFailure) {
        self.failure = failure
    }
}
