import Foundation
import HeraldCore

/// What a push service's answer means for one push (RFC 8030 §5, §7, §8.4; the answers autopush,
/// FCM's and Apple's Web Push services give).
enum WebPushAnswer {
    static func verdict(status: Int, retryAfter: String?, body: [UInt8]) -> AttemptVerdict {
        let detail = Self.detail(status: status, body: body)
        switch status {
        case 200..<300:
            return .finish(.delivered)
        case 404:
            return .finish(.deadToken(DeliveryFailure(.subscriptionExpired, detail)))
        case 410:
            return .finish(.deadToken(DeliveryFailure(.subscriptionGone, detail)))
        case 413:
            return .finish(.rejected(DeliveryFailure(.payloadTooLarge, detail)))
        case 401, 403:
            // The push service refuses the VAPID credentials (RFC 8292 §4.2): the operator's key
            // or subject, not the subscription, so the token is kept.
            return .finish(.failed(DeliveryFailure(.credentials, detail)))
        case 429:
            return .retry(reason: "TooManyRequests: \(detail)", after: retryAfter.flatMap { RetryAfter.parse($0) }, then: .none)
        case 408, 500..<600:
            return .retry(reason: detail, after: retryAfter.flatMap { RetryAfter.parse($0) }, then: .none)
        case 300..<400:
            return .finish(.failed(DeliveryFailure(.other, detail + " (a push service does not redirect; not followed)")))
        default:
            return .finish(.rejected(DeliveryFailure(.badRequest, detail)))
        }
    }

    /// The status and the start of the body, printable ASCII only: what the push service said, as
    /// logs and feedback show it.
    static func detail(status: Int, body: [UInt8]) -> String {
        let text = String(decoding: body.prefix(200).map { (0x20..<0x7F).contains($0) ? $0 : UInt8(ascii: " ") }, as: UTF8.self)
            .trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? "HTTP \(status)" : "HTTP \(status): \(text)"
    }
}
