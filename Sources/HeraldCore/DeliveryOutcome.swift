/// How a push ended. Every accepted notification ends in exactly one of these.
public enum DeliveryOutcome: Sendable, Hashable {
    /// The provider accepted it.
    case delivered
    /// The provider says the token will never work again (APNs 410, `BadDeviceToken`; FCM
    /// `UNREGISTERED`): its registration is disabled.
    case deadToken(DeliveryFailure)
    /// The request itself is wrong (payload too large, bad header); retrying cannot help.
    case rejected(DeliveryFailure)
    /// It could not be delivered: retries ran out, the deadline passed, or the credentials or
    /// configuration are wrong.
    case failed(DeliveryFailure)

    /// Why it was not delivered; `nil` when it was.
    public var failure: DeliveryFailure? {
        switch self {
        case .delivered: nil
        case .deadToken(let failure), .rejected(let failure), .failed(let failure): failure
        }
    }

    /// The provider's reason or Herald's explanation, as front doors answer it (`delivered` when
    /// it was).
    public var reason: String { self.failure?.detail ?? "delivered" }

    /// The result class, a metric label and the feedback webhook's `result`.
    public var result: String {
        switch self {
        case .delivered: "delivered"
        case .deadToken: "dead_token"
        case .rejected: "rejected"
        case .failed: "failed"
        }
    }

    /// A provider's reason as sent (`Unregistered`, `UNREGISTERED`, `HTTP 410`): its code is the
    /// documented reason's, or `other`.
    public static func deadToken(reason: String) -> Self { .deadToken(DeliveryFailure(providerReason: reason)) }
    public static func rejected(reason: String) -> Self { .rejected(DeliveryFailure(providerReason: reason)) }
    public static func failed(reason: String) -> Self { .failed(DeliveryFailure(providerReason: reason)) }
}
