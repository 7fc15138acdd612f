import Foundation

/// An APNs answer: status, `apns-id`, and for failures the reason (and, for 410, when the token
/// became invalid).
public struct APNSResponse: Sendable, Hashable {
    public var status: Int
    public var apnsID: String?
    public var reason: APNSReason?
    /// For 410: milliseconds since the epoch when APNs last confirmed the token invalid.
    public var timestamp: Int64?
    public var retryAfter: Duration?

    /// Error bodies are a small JSON object; anything larger is not APNs and is not parsed.
    static let maximumBody = 1024

    public init(_ response: HTTP2Response) {
        self.status = response.status
        self.apnsID = response.headers.first(name: "apns-id")
        self.retryAfter = response.headers.first(name: "retry-after").flatMap { RetryAfter.parse($0) }
        if response.status != 200, !response.body.isEmpty, response.body.count <= Self.maximumBody,
            let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        {
            self.reason = (object["reason"] as? String).map(APNSReason.init(rawValue:))
            self.timestamp = (object["timestamp"] as? NSNumber)?.int64Value
        }
    }

    /// What to do about this answer.
    public var decision: AttemptVerdict {
        APNSReason.decision(status: self.status, reason: self.reason, retryAfter: self.retryAfter)
    }
}

extension APNSRequest: ProviderRequest {
    public func decision(for response: HTTP2Response) -> AttemptVerdict {
        APNSResponse(response).decision
    }
}
