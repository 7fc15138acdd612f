/// The push service a device token belongs to.
///
/// An open set over the wire integer: a front door's protocol may accept token types Herald cannot
/// deliver to yet, and the registry must store and return them unchanged.
public struct Platform: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Apple Push Notification service.
    public static let apns = Platform(rawValue: 1)
    /// Firebase Cloud Messaging.
    public static let fcm = Platform(rawValue: 2)
    /// Web Push (RFC 8030) to a browser's or a UnifiedPush distributor's push service; the token
    /// is the subscription as a browser's `PushSubscription.toJSON()` writes it.
    public static let webPush = Platform(rawValue: 3)

    public var description: String {
        switch self {
        case .apns: "apns"
        case .fcm: "fcm"
        case .webPush: "webpush"
        default: "platform(\(self.rawValue))"
        }
    }
}
