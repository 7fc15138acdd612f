import HeraldCore

extension FCMErrorCode {
    /// Google's floor for a quota refusal without `Retry-After` (fcm.md §4.2).
    static let quotaBackoff: Duration = .seconds(60)

    /// What Herald does with an FCM answer (fcm.md §4.2): decided on `errorCode`, on the HTTP
    /// status only when there is none, as firebase-admin-go does.
    static func decision(status: Int, errorCode: FCMErrorCode?, retryAfter: Duration?) -> AttemptVerdict {
        if status == 200 { return .finish(.delivered) }
        if let code = errorCode, code != .unspecifiedError {
            switch code {
            case .unregistered, .senderIDMismatch:
                return .finish(.deadToken(reason: code.rawValue))
            case .invalidArgument:
                // Payload bugs land here too, so the token is not dropped.
                return .finish(.rejected(reason: code.rawValue))
            case .quotaExceeded:
                return .retry(reason: code.rawValue, after: max(retryAfter ?? Self.quotaBackoff, Self.quotaBackoff), then: .none)
            case .unavailable, .internal:
                return .retry(reason: code.rawValue, after: retryAfter, then: .none)
            case .thirdPartyAuthError, .apnsAuthError:
                // Credentials stored in Firebase are wrong; a new OAuth token would not help.
                return .finish(.failed(reason: FCMErrorCode.thirdPartyAuthError.rawValue))
            default:
                return .finish(.failed(reason: code.rawValue))
            }
        }
        switch status {
        case 401:
            // A bare 401 is about the OAuth token itself: refresh it and try again.
            return .retry(reason: "UNAUTHENTICATED", after: nil, then: .refreshToken)
        case 429:
            return .retry(reason: "HTTP 429", after: max(retryAfter ?? Self.quotaBackoff, Self.quotaBackoff), then: .none)
        case 500, 502, 503, 504:
            return .retry(reason: "HTTP \(status)", after: retryAfter, then: .none)
        case 404 where errorCode == nil:
            return .finish(.failed(reason: "HTTP 404: not an FCM v1 endpoint"))
        default:
            return .finish(.failed(reason: "HTTP \(status)"))
        }
    }
}
