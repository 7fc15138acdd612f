public import HeraldCore

/// The FCM data message Sygnal's FCM pushkin builds (docs/matrix-push-facts.md §4.2–§4.3): the
/// client's `default_payload`, then the notification's string fields, `content`'s strings as
/// `content_<key>`, `prio`, and the non-zero counts as strings, each string cut to 1024 bytes.
public enum MatrixFCMData {
    static let maximumField = 1024

    /// The `message` fields other than the token (`data`, and `android.priority` through the
    /// push's priority); `nil` when there is nothing to send (no room, no event, no count). A
    /// device whose `default_payload` is no object is rejected before this.
    public static func build(_ notification: MatrixNotification, device: MatrixNotification.Device, sendBadge: Bool = true) -> [(String, JSONValue)]? {
        var data = OrderedObject(device.defaultPayload)
        // FCM's data values are strings: a client's number or object would make FCM refuse the
        // message (400) and the homeserver retry it for a day, so it goes as its JSON text.
        for (key, value) in data.pairs {
            if case .string = value { continue }
            data[key] = .string(String(decoding: value.bytes, as: UTF8.self))
        }
        let fields: [(String, String?)] = [
            ("event_id", notification.eventID), ("type", notification.type), ("sender", notification.sender),
            ("room_name", notification.roomName), ("room_alias", notification.roomAlias), ("membership", notification.membership),
            ("sender_display_name", notification.senderDisplayName),
        ]
        for (name, value) in fields {
            if let value { data[name] = .string(Self.truncate(value)) }
        }
        if let room = notification.roomID { data["room_id"] = .string(Self.truncate(room)) }
        for (key, value) in notification.content ?? [] {
            if case .string(let text) = value { data["content_" + key] = .string(Self.truncate(text)) }
        }
        data["prio"] = .string(notification.isLowPriority ? "normal" : "high")
        var counted = false
        if sendBadge {
            if let unread = notification.unread, unread != 0 {
                data["unread"] = .string(String(unread))
                counted = true
            }
            if let missed = notification.missedCalls, missed != 0 {
                data["missed_calls"] = .string(String(missed))
                counted = true
            }
        }
        guard notification.roomID != nil || notification.eventID != nil || counted else { return nil }
        return [("data", .object(data.pairs))]
    }

    /// Over 1024 UTF-8 bytes: the first 1021, less a split last character, then `…`.
    static func truncate(_ text: String) -> String {
        let utf8 = Array(text.utf8)
        guard utf8.count > Self.maximumField else { return text }
        var end = Self.maximumField - 3
        // A cut inside a character moves back to where that character starts.
        while end > 0, utf8[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: utf8[..<end], as: UTF8.self) + "…"
    }
}
