import HeraldCore

extension APNSReason {
    /// What Herald does with an APNs answer (apns.md §5.1). Written as one table so every known
    /// reason is decided in one place; an unknown reason fails the push without a retry.
    static func decision(status: Int, reason: APNSReason?, retryAfter: Duration?) -> AttemptVerdict {
        if status == 200 { return .finish(.delivered) }
        guard let reason else {
            // No reason body: decide by status alone.
            switch status {
            case 410: return .finish(.deadToken(reason: "HTTP 410"))
            case 429, 500, 502, 503, 504: return .retry(reason: "HTTP \(status)", after: retryAfter, then: .none)
            default: return .finish(.failed(reason: "HTTP \(status)"))
            }
        }
        switch reason {
        case .badDeviceToken, .deviceTokenNotForTopic, .expiredToken, .unregistered:
            return .finish(.deadToken(reason: reason.rawValue))
        case .badCollapseId, .badExpirationDate, .badMessageId, .badPriority, .duplicateHeaders, .invalidPushType,
            .missingDeviceToken, .payloadEmpty, .payloadTooLarge, .badPath, .methodNotAllowed, .missingProviderToken:
            return .finish(.rejected(reason: reason.rawValue))
        case .badTopic, .missingTopic, .topicDisallowed, .badCertificate, .badCertificateEnvironment, .forbidden,
            .invalidProviderToken, .badEnvironmentKeyIdInToken:
            return .finish(.failed(reason: reason.rawValue))
        case .idleTimeout, .shutdown, .unrelatedKeyIdInToken, .tooManyProviderTokenUpdates:
            // The connection's state (idle, shutting down, bound to another key, or its token
            // history) is the problem: a fresh connection is.
            return .retry(reason: reason.rawValue, after: retryAfter, then: .newConnection)
        case .expiredProviderToken:
            return .retry(reason: reason.rawValue, after: retryAfter, then: .refreshToken)
        case .tooManyRequests, .internalServerError, .serviceUnavailable:
            return .retry(reason: reason.rawValue, after: retryAfter, then: .none)
        default:
            return .finish(.failed(reason: reason.rawValue))
        }
    }
}
