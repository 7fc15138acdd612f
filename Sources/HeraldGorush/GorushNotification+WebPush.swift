public import Foundation
public import HeraldCore
import HeraldDelivery

extension GorushNotification {
    /// The Web Push messages of a platform-4 entry, Herald's own (gorush has no Web Push target,
    /// gorush#248): one per subscription in `tokens` (each the JSON of a browser's
    /// `PushSubscription`), all carrying the same JSON for the service worker. A `topic` names the
    /// Herald app when there are several.
    public func webPushNotifications(now: Int64 = Int64(Date().timeIntervalSince1970)) -> [PushNotification] {
        let payload = self.webPushPayload()
        let priority = self.pushPriority
        let app = (self.topic ?? "").isEmpty ? nil : self.topic
        // Clamped before adding: a client's time_to_live may be any 64-bit integer.
        let expiration = self.expiration ?? self.timeToLive.map { now + min(max(0, $0), WebPushRequest.maximumTTL) }
        return (self.tokens ?? []).map { token in
            PushNotification(
                id: Self.newID(),
                device: Device(platform: .webPush, token: token, app: app),
                payload: payload,
                priority: priority,
                expiration: expiration,
                collapseID: self.collapseID,
                callerReference: self.notifID
            )
        }
    }

    /// What a service worker's `event.data.json()` reads: the fields of `showNotification` a
    /// gorush entry has (`title`, `body` from `message`, `image`, `badge`), and `data` as given.
    func webPushPayload() -> [UInt8] {
        var fields: [(String, JSONValue)] = []
        if let title = self.title, !title.isEmpty { fields.append(("title", .string(title))) }
        if let message = self.message, !message.isEmpty { fields.append(("body", .string(message))) }
        if let image = self.image, !image.isEmpty { fields.append(("image", .string(image))) }
        if let badge = self.badge { fields.append(("badge", .number(Double(badge)))) }
        if let data = self.data, !data.isEmpty {
            fields.append(("data", .object(data.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })))
        }
        return JSONValue.object(fields).bytes
    }
}
