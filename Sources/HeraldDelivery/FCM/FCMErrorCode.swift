/// FCM's `details[].errorCode` (fcm.md §4.2), open so codes FCM adds later still parse.
public struct FCMErrorCode: RawRepresentable, Hashable, Sendable {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let unregistered = FCMErrorCode(rawValue: "UNREGISTERED")
    public static let senderIDMismatch = FCMErrorCode(rawValue: "SENDER_ID_MISMATCH")
    public static let invalidArgument = FCMErrorCode(rawValue: "INVALID_ARGUMENT")
    public static let quotaExceeded = FCMErrorCode(rawValue: "QUOTA_EXCEEDED")
    public static let unavailable = FCMErrorCode(rawValue: "UNAVAILABLE")
    public static let `internal` = FCMErrorCode(rawValue: "INTERNAL")
    public static let thirdPartyAuthError = FCMErrorCode(rawValue: "THIRD_PARTY_AUTH_ERROR")
    /// The former name of `THIRD_PARTY_AUTH_ERROR`.
    public static let apnsAuthError = FCMErrorCode(rawValue: "APNS_AUTH_ERROR")
    public static let unspecifiedError = FCMErrorCode(rawValue: "UNSPECIFIED_ERROR")
}
