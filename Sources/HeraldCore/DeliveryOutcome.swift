/// How a push ended. Every accepted notification ends in exactly one of these.
public enum DeliveryOutcome: Sendable, Hashable {
    /// The provider accepted it.
    case delivered
    /// The provider says the token will never work again (APNs 410, `BadDeviceToken`; FCM
    /// `UNREGISTERED`): its registration is disabled.
    case deadToken(reason: String)
    /// The request itself is wrong (payload too large, bad header); retrying cannot help.
    case rejected(reason: String)
    /// It could not be delivered: retries ran out, the deadline passed, or the credentials or
    /// configuration are wrong.
    case failed(reason: String)

    /// The provider's reason, or a Herald reason, as a stable label for logs and metrics.
    public var reason: String {
        switch self {
        case .delivered: "delivered"
        case .deadToken(let reason), .rejected(let reason), .failed(let reason): reason
        }
    }
}
