import Foundation
import HeraldCore

/// An FCM answer: status, and for failures the google.rpc.Status envelope's `status` and the
/// FCM `errorCode` from its details (fcm.md §4.1).
public struct FCMResponse: Sendable, Hashable {
    public var status: Int
    /// The generic gRPC status name (`NOT_FOUND`, `UNAUTHENTICATED`, …).
    public var statusName: String?
    public var errorCode: FCMErrorCode?
    public var message: String?
    public var retryAfter: Duration?
    /// `projects/{project}/messages/{id}` of a sent message.
    public var name: String?

    static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    /// FCM's answers are small JSON objects; anything larger is not parsed.
    static let maximumBody = 64 * 1024

    public init(_ response: HTTP2Response) {
        self.status = response.status
        self.retryAfter = response.headers.first(name: "retry-after").flatMap { RetryAfter.parse($0) }
        guard !response.body.isEmpty, response.body.count <= Self.maximumBody,
            let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        else { return }
        self.name = object["name"] as? String
        guard let error = object["error"] as? [String: Any] else { return }
        self.statusName = error["status"] as? String
        self.message = error["message"] as? String
        let details = error["details"] as? [[String: Any]] ?? []
        self.errorCode = details.first { $0["@type"] as? String == Self.fcmErrorType }
            .flatMap { $0["errorCode"] as? String }
            .map(FCMErrorCode.init(rawValue:))
    }

    /// What to do about this answer.
    public var decision: AttemptVerdict {
        FCMErrorCode.decision(status: self.status, errorCode: self.errorCode, retryAfter: self.retryAfter)
    }
}

extension FCMRequest: ProviderRequest {
    public func decision(for response: HTTP2Response) -> AttemptVerdict {
        // A sent message's answer only names it: nothing in it to read for the decision.
        if response.status == 200 { return .finish(.delivered) }
        return FCMResponse(response).decision
    }
}
