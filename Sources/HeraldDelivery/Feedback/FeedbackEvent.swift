public import Foundation
public import HeraldCore

/// One failed push as the feedback webhook posts it: the failed-push log entry existing
/// feedback receivers read (`type`, `platform`, `token`, `error`, `notif_id`; docs/delivery.md),
/// plus Herald's push id, app, result class and time.
public struct FeedbackEvent: Sendable, Hashable {
    public var id: String
    public var callerReference: String?
    public var app: String?
    public var platform: Platform
    public var token: String
    public var topic: String?
    public var outcome: DeliveryOutcome
    /// UNIX seconds.
    public var time: Int64

    public init(_ notification: PushNotification, app: String?, outcome: DeliveryOutcome, time: Int64 = Int64(Date().timeIntervalSince1970)) {
        self.id = notification.id
        self.callerReference = notification.callerReference
        self.app = app
        self.platform = notification.device.platform
        self.token = notification.device.token
        self.topic = notification.device.topic
        self.outcome = outcome
        self.time = time
    }

    /// The result class: `dead_token`, `rejected` or `failed`.
    public var result: String { self.outcome.result }

    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("type", .string("failed-push")),
            ("platform", .string(self.platform == .apns ? "ios" : self.platform == .fcm ? "android" : "\(self.platform)")),
            ("token", .string(self.token)),
            ("error", .string(self.outcome.reason)),
            ("result", .string(self.result)),
            ("id", .string(self.id)),
        ]
        if let reference = self.callerReference { fields.append(("notif_id", .string(reference))) }
        if let app = self.app { fields.append(("app", .string(app))) }
        if let topic = self.topic { fields.append(("topic", .string(topic))) }
        fields.append(("time", .number(Double(self.time))))
        return .object(fields)
    }
}

/// Told about every push that did not end `delivered`, after its outcome is final.
public protocol FailureObserver: Sendable {
    func pushFailed(_ event: FeedbackEvent)
}
