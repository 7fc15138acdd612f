/// Why a push did not end `delivered`: a code from a closed set, for metric labels, logs and
/// decisions, plus the detail a person or a protocol answer needs (the provider's reason as sent,
/// or what Herald gave up on).
public struct DeliveryFailure: Sendable, Hashable, CustomStringConvertible {
    /// The closed set of failure codes. A documented provider reason is its own code, spelled as
    /// the provider sends it, so dashboards read the provider's words; Herald's own failures are
    /// snake_case. The raw value is the metric label.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        // APNs reasons (apns.md §5.1).
        case badCollapseId = "BadCollapseId"
        case badDeviceToken = "BadDeviceToken"
        case badExpirationDate = "BadExpirationDate"
        case badMessageId = "BadMessageId"
        case badPriority = "BadPriority"
        case badTopic = "BadTopic"
        case deviceTokenNotForTopic = "DeviceTokenNotForTopic"
        case duplicateHeaders = "DuplicateHeaders"
        case idleTimeout = "IdleTimeout"
        case invalidPushType = "InvalidPushType"
        case missingDeviceToken = "MissingDeviceToken"
        case missingTopic = "MissingTopic"
        case payloadEmpty = "PayloadEmpty"
        case topicDisallowed = "TopicDisallowed"
        case badCertificate = "BadCertificate"
        case badCertificateEnvironment = "BadCertificateEnvironment"
        case expiredProviderToken = "ExpiredProviderToken"
        case forbidden = "Forbidden"
        case invalidProviderToken = "InvalidProviderToken"
        case missingProviderToken = "MissingProviderToken"
        case unrelatedKeyIdInToken = "UnrelatedKeyIdInToken"
        case badEnvironmentKeyIdInToken = "BadEnvironmentKeyIdInToken"
        case badPath = "BadPath"
        case methodNotAllowed = "MethodNotAllowed"
        case expiredToken = "ExpiredToken"
        case unregistered = "Unregistered"
        case payloadTooLarge = "PayloadTooLarge"
        case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
        case tooManyRequests = "TooManyRequests"
        case internalServerError = "InternalServerError"
        case serviceUnavailable = "ServiceUnavailable"
        case shutdown = "Shutdown"
        // FCM error codes (fcm.md §4.2).
        case fcmUnregistered = "UNREGISTERED"
        case fcmSenderIDMismatch = "SENDER_ID_MISMATCH"
        case fcmInvalidArgument = "INVALID_ARGUMENT"
        case fcmQuotaExceeded = "QUOTA_EXCEEDED"
        case fcmUnavailable = "UNAVAILABLE"
        case fcmInternal = "INTERNAL"
        case fcmThirdPartyAuthError = "THIRD_PARTY_AUTH_ERROR"
        case fcmUnspecifiedError = "UNSPECIFIED_ERROR"
        // Web Push (RFC 8030): push services answer with a status and no reason of their own.
        /// 404: the subscription expired (RFC 8030 §7.3).
        case subscriptionExpired = "subscription_expired"
        /// 410: the subscription is gone, unsubscribed or never existed (autopush, FCM).
        case subscriptionGone = "subscription_gone"
        /// 400 or another 4xx the push service gave without a more specific meaning.
        case badRequest = "bad_request"
        /// The token is not a Web Push subscription (its JSON, endpoint or keys).
        case badSubscription = "bad_subscription"
        /// The endpoint is not on the allow-list, or resolves only to addresses that are not
        /// public (SSRF).
        case endpointRefused = "endpoint_refused"
        // Herald's own.
        /// A provider answer outside its documented reasons, or a bare HTTP status.
        case other = "other"
        /// Retries ran out.
        case retriesExhausted = "retries_exhausted"
        /// The notification's deadline passed before an answer.
        case deadlineExceeded = "deadline_exceeded"
        /// The push's task was cancelled (shutdown).
        case cancelled = "cancelled"
        /// The provider credentials cannot be used (a key or service account refused for good).
        case credentials = "credentials"
        /// The notification names an app this node does not serve.
        case unknownApp = "unknown_app"
        /// The app has no credentials for the device's platform.
        case noProvider = "no_provider"
        /// The endpoint's queue was full.
        case overloaded = "overloaded"
        /// The endpoint was shutting down.
        case shuttingDown = "shutting_down"

        /// The code of a provider's reason as sent; `other` for one Herald does not know.
        public init(providerReason reason: String) {
            self = Self(rawValue: reason) ?? .other
        }
    }

    public var code: Code
    /// What a person (or the front door's answer) reads: the provider's reason as sent, or
    /// Herald's explanation.
    public var detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// A provider's own reason: its code, and the reason as sent for the detail.
    public init(providerReason reason: String) {
        self.init(Code(providerReason: reason), reason)
    }

    public var description: String { "\(self.code.rawValue): \(self.detail)" }
}
