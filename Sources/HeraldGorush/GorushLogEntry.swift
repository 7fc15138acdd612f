import HeraldCore
import HeraldDelivery

/// One `failed-push` entry of gorush's response `logs` and feedback webhook (gorush-api.md §3.1).
struct GorushLogEntry: Sendable, Hashable {
    var notifID: String?
    var platform: String
    var token: String
    var message: String
    var error: String
    /// A failure a later attempt may get past; not part of gorush's entry.
    var isTransient = false

    /// Failures of that kind: Herald giving up for now, the providers' transient answers.
    static let transientCodes: Set<DeliveryFailure.Code> = [
        .retriesExhausted, .deadlineExceeded, .overloaded, .shuttingDown, .cancelled,
        .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown,
        .fcmQuotaExceeded, .fcmUnavailable, .fcmInternal,
    ]

    var json: JSONValue {
        var pairs: [(String, JSONValue)] = []
        if let notifID, !notifID.isEmpty { pairs.append(("notif_id", .string(notifID))) }
        pairs += [
            ("type", .string("failed-push")),
            ("platform", .string(self.platform)),
            ("token", .string(self.token)),
            ("message", .string(self.message)),
            ("error", .string(self.error)),
        ]
        return .object(pairs)
    }

    /// gorush's `hide_token` (on by default): the first and last 10 characters become `*`, and a
    /// token shorter than 20 characters is masked whole.
    /// A Web Push subscription is masked as its endpoint alone: the rest is its keys, and the
    /// middle of them would still be most of the `auth` secret.
    static func mask(_ token: String, platform: String) -> String {
        guard platform == "webpush" else { return Self.mask(token) }
        guard let subscription = try? WebPushSubscription(token: token) else { return String(repeating: "*", count: 20) }
        return Self.mask(subscription.endpoint.url)
    }

    static func mask(_ token: String) -> String {
        let characters = Array(token)
        guard characters.count >= 20 else { return String(repeating: "*", count: characters.count) }
        return String(repeating: "*", count: 10) + String(characters[10..<(characters.count - 10)]) + String(repeating: "*", count: 10)
    }
}
