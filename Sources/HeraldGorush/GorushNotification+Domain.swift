import Foundation
public import HeraldCore
import HeraldDelivery

extension GorushNotification {
    /// The APNs notifications of an iOS entry, one per token, with the payload gorush would
    /// build (gorush-api.md §2.3–2.4): the alert as a string when there is no title, a dictionary
    /// otherwise (an `alert` object wins), `data` keys beside `aps`. `app` is the app each is
    /// addressed to, when the caller knows it.
    public func apnsNotifications(app: String? = nil) -> [PushNotification] {
        let tokens = self.tokens ?? []
        let payload = self.apnsPayload()
        let priority = self.pushPriority
        let topic = (self.topic ?? "").isEmpty ? nil : self.topic
        // A caller's apns-id names one push; with several tokens each needs its own.
        let ids = tokens.count == 1 ? [self.apnsID.map { $0.lowercased() } ?? Self.newID()] : RandomUUID.lowercased(count: tokens.count)
        return zip(tokens, ids).map { token, id in
            PushNotification(
                id: id,
                device: Device(platform: .apns, token: token, topic: topic, app: app),
                payload: payload,
                priority: priority,
                expiration: self.expiration,
                collapseID: self.collapseID,
                pushType: self.pushType,
                callerReference: self.notifID
            )
        }
    }

    func apnsPayload() -> [UInt8] {
        var payload = APNSPayload()
        if let alert = self.alert, !alert.isEmpty {
            payload.alert = .fields(Self.object(alert))
        } else if let title = self.title, !title.isEmpty {
            payload.alert = .fields(.object([("title", .string(title)), ("body", .string(self.message ?? ""))]))
        } else if let message = self.message, !message.isEmpty {
            payload.alert = .text(message)
        }
        payload.badge = self.badge
        payload.sound = self.soundValue
        payload.category = self.category
        payload.threadID = self.threadID
        payload.urlArgs = self.urlArgs
        payload.contentAvailable = self.contentAvailable == true
        payload.mutableContent = self.mutableContent == true
        payload.interruptionLevel = self.interruptionLevel
        payload.relevanceScore = self.relevanceScore
        payload.contentState = self.contentState.map(Self.object)
        payload.staleDate = self.staleDate
        payload.dismissalDate = self.dismissalDate
        payload.event = self.event
        payload.timestamp = self.timestamp
        payload.attributesType = self.attributesType
        payload.attributes = self.attributes.map(Self.object)
        payload.custom = (self.data ?? [:]).sorted(by: { $0.key < $1.key }).map { ($0.key, $0.value) }
        return payload.bytes
    }

    /// `sound` as a string or a `{critical, name, volume}` dictionary; `name`/`volume` fields build
    /// the dictionary when `sound` is absent.
    private var soundValue: JSONValue? {
        switch self.sound {
        case .string(let name) where !name.isEmpty: return .string(name)
        case .object(let pairs): return .object(pairs.sorted { $0.0 < $1.0 })
        default: break
        }
        guard self.name != nil || self.volume != nil else { return nil }
        var pairs: [(String, JSONValue)] = []
        if let name = self.name { pairs.append(("name", .string(name))) }
        if let volume = self.volume { pairs.append(("volume", .number(volume))) }
        return .object(pairs)
    }

    private static func object(_ dictionary: [String: JSONValue]) -> JSONValue {
        .object(dictionary.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    static func newID() -> String {
        RandomUUID.lowercased()
    }
}
