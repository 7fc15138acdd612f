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

    public var description: String {
        switch self {
        case .apns: "apns"
        case .fcm: "fcm"
        default: "platform(\(self.rawValue))"
        }
    }
}
