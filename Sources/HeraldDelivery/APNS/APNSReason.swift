/// An APNs failure reason, as sent in `{"reason": …}`. Open: an unknown reason is kept as sent.
public struct APNSReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { self.rawValue }

    public static let badCollapseId = Self(rawValue: "BadCollapseId")
    public static let badDeviceToken = Self(rawValue: "BadDeviceToken")
    public static let badExpirationDate = Self(rawValue: "BadExpirationDate")
    public static let badMessageId = Self(rawValue: "BadMessageId")
    public static let badPriority = Self(rawValue: "BadPriority")
    public static let badTopic = Self(rawValue: "BadTopic")
    public static let deviceTokenNotForTopic = Self(rawValue: "DeviceTokenNotForTopic")
    public static let duplicateHeaders = Self(rawValue: "DuplicateHeaders")
    public static let idleTimeout = Self(rawValue: "IdleTimeout")
    public static let invalidPushType = Self(rawValue: "InvalidPushType")
    public static let missingDeviceToken = Self(rawValue: "MissingDeviceToken")
    public static let missingTopic = Self(rawValue: "MissingTopic")
    public static let payloadEmpty = Self(rawValue: "PayloadEmpty")
    public static let topicDisallowed = Self(rawValue: "TopicDisallowed")
    public static let badCertificate = Self(rawValue: "BadCertificate")
    public static let badCertificateEnvironment = Self(rawValue: "BadCertificateEnvironment")
    public static let expiredProviderToken = Self(rawValue: "ExpiredProviderToken")
    public static let forbidden = Self(rawValue: "Forbidden")
    public static let invalidProviderToken = Self(rawValue: "InvalidProviderToken")
    public static let missingProviderToken = Self(rawValue: "MissingProviderToken")
    public static let unrelatedKeyIdInToken = Self(rawValue: "UnrelatedKeyIdInToken")
    public static let badEnvironmentKeyIdInToken = Self(rawValue: "BadEnvironmentKeyIdInToken")
    public static let badPath = Self(rawValue: "BadPath")
    public static let methodNotAllowed = Self(rawValue: "MethodNotAllowed")
    public static let expiredToken = Self(rawValue: "ExpiredToken")
    public static let unregistered = Self(rawValue: "Unregistered")
    public static let payloadTooLarge = Self(rawValue: "PayloadTooLarge")
    public static let tooManyProviderTokenUpdates = Self(rawValue: "TooManyProviderTokenUpdates")
    public static let tooManyRequests = Self(rawValue: "TooManyRequests")
    public static let internalServerError = Self(rawValue: "InternalServerError")
    public static let serviceUnavailable = Self(rawValue: "ServiceUnavailable")
    public static let shutdown = Self(rawValue: "Shutdown")
}
