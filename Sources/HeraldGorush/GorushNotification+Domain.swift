import Foundation
import HeraldCore

extension GorushNotification {
    /// The APNs notifications of an iOS entry, one per token, with the payload gorush would
    /// build (gorush-api.md §2.3–2.4): the alert as a string when there is no title, a dictionary
    /// otherwise (an `alert` object wins), `data` keys beside `aps`.
    func apnsNotifications() -> [PushNotification] {
        let tokens = self.tokens ?? []
        let payload = self.apnsPayload()
        let priority: PushNotification.Priority? =
            switch self.priority {
            case "high": .immediate
            case "normal": .powerConsiderate
            default: nil
            }
        let topic = (self.topic ?? "").isEmpty ? nil : self.topic
        return tokens.map { token in
            // A caller's apns-id names one push; with several tokens each needs its own.
            let id = tokens.count == 1 ? (self.apnsID.map { $0.lowercased() } ?? Self.newID()) : Self.newID()
            return PushNotification(
                id: id,
                device: Device(platform: .apns, token: token, topic: topic),
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
        var aps: [(String, JSONValue)] = []
        if let alert = self.alert, !alert.isEmpty {
            aps.append(("alert", .object(alert.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })))
        } else if let title = self.title, !title.isEmpty {
            aps.append(("alert", .object([("title", .string(title)), ("body", .string(self.message ?? ""))])))
        } else if let message = self.message, !message.isEmpty {
            aps.append(("alert", .string(message)))
        }
        if let badge = self.badge, badge >= 0 { aps.append(("badge", .number(Double(badge)))) }
        if let sound = self.soundValue { aps.append(("sound", sound)) }
        if let category = self.category, !category.isEmpty { aps.append(("category", .string(category))) }
        if let threadID = self.threadID, !threadID.isEmpty { aps.append(("thread-id", .string(threadID))) }
        if let urlArgs = self.urlArgs, !urlArgs.isEmpty { aps.append(("url-args", .array(urlArgs.map(JSONValue.string)))) }
        if self.contentAvailable == true { aps.append(("content-available", .number(1))) }
        if self.mutableContent == true { aps.append(("mutable-content", .number(1))) }
        if let level = self.interruptionLevel, !level.isEmpty { aps.append(("interruption-level", .string(level))) }
        if let score = self.relevanceScore { aps.append(("relevance-score", .number(score))) }
        if let state = self.contentState { aps.append(("content-state", Self.object(state))) }
        if let staleDate = self.staleDate { aps.append(("stale-date", .number(Double(staleDate)))) }
        if let dismissalDate = self.dismissalDate { aps.append(("dismissal-date", .number(Double(dismissalDate)))) }
        if let event = self.event, !event.isEmpty { aps.append(("event", .string(event))) }
        if let timestamp = self.timestamp { aps.append(("timestamp", .number(Double(timestamp)))) }
        if let type = self.attributesType, !type.isEmpty { aps.append(("attributes-type", .string(type))) }
        if let attributes = self.attributes { aps.append(("attributes", Self.object(attributes))) }

        var root: [(String, JSONValue)] = [("aps", .object(aps))]
        for (key, value) in (self.data ?? [:]).sorted(by: { $0.key < $1.key }) where key != "aps" {
            root.append((key, value))
        }
        return JSONValue.object(root).bytes
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
        UUID().uuidString.lowercased()
    }
}
