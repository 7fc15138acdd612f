public import HeraldCore

/// The APNs payload Sygnal's APNs pushkin builds for a notification (docs/matrix-push-facts.md
/// §3.4–§3.6), so that Element iOS and Element X iOS find what they read: for an event-id-only
/// request the client's `default_payload` with `room_id`, `event_id` and the counts beside it;
/// for a full one a localised alert (`loc-key` and `loc-args`) and the badge.
public enum MatrixAPNSPayload {
    /// APNs' limit, which the payload is shortened to rather than refused.
    public static let maximumSize = 4096
    /// Sygnal cuts sender and room names to this many characters.
    static let maximumName = 1024

    /// The payload; `nil` when there is nothing to send (no alert and no badge), which is not a
    /// rejection. A device whose `default_payload` is no object is rejected before this
    /// (`MatrixNotification.Device.hasUsableDefaultPayload`).
    public static func build(_ notification: MatrixNotification, device: MatrixNotification.Device, sendBadge: Bool = true) -> JSONValue? {
        notification.isEventIDOnly
            ? Self.eventIDOnly(notification, device: device, sendBadge: sendBadge)
            : Self.full(notification, device: device, sendBadge: sendBadge)
    }

    static func eventIDOnly(_ notification: MatrixNotification, device: MatrixNotification.Device, sendBadge: Bool) -> JSONValue {
        var payload = OrderedObject(device.defaultPayload)
        if let room = notification.roomID, !room.isEmpty { payload["room_id"] = .string(room) }
        if let event = notification.eventID, !event.isEmpty { payload["event_id"] = .string(event) }
        if sendBadge {
            if let unread = notification.unread { payload["unread_count"] = .number(Double(unread)) }
            if let missed = notification.missedCalls { payload["missed_calls"] = .number(Double(missed)) }
        }
        return .object(payload.pairs)
    }

    static func full(_ notification: MatrixNotification, device: MatrixNotification.Device, sendBadge: Bool) -> JSONValue? {
        let alert = Self.localisedAlert(notification)
        var badge: Int?
        if sendBadge, notification.unread != nil || notification.missedCalls != nil {
            badge = (notification.unread ?? 0) + (notification.missedCalls ?? 0)
        }
        guard alert != nil || badge != nil else { return nil }
        // A badge-only update ignores the client's default payload, as Sygnal does.
        var payload = OrderedObject((notification.type ?? "").isEmpty ? nil : device.defaultPayload)
        var aps = OrderedObject(payload["aps"])
        if let alert {
            var fields = OrderedObject(aps["alert"])
            fields["loc-key"] = .string(alert.key)
            fields["loc-args"] = .array(alert.arguments.map { .string($0) })
            aps["alert"] = .object(fields.pairs)
        }
        if let badge { aps["badge"] = .number(Double(badge)) }
        payload["aps"] = .object(aps.pairs)
        if alert != nil {
            if let room = notification.roomID, !room.isEmpty { payload["room_id"] = .string(room) }
            if let event = notification.eventID, !event.isEmpty { payload["event_id"] = .string(event) }
        }
        return .object(payload.pairs)
    }

    /// Sygnal's table of `loc-key`s by event type (§3.5); `nil` for events it does not announce.
    static func localisedAlert(_ notification: MatrixNotification) -> (key: String, arguments: [String])? {
        let sender = notification.sender ?? ""
        let from: String
        if sender.isEmpty, (notification.senderDisplayName ?? "").isEmpty {
            from = " "
        } else {
            from = Self.cut(notification.senderDisplayName ?? sender)
        }
        let room: String? = [notification.roomName, notification.roomAlias].lazy.compactMap { $0 }.first { !$0.isEmpty }.map(Self.cut)
        let content = notification.content ?? []
        func contentString(_ name: String) -> String? {
            if case .string(let text)? = content.last(where: { $0.0 == name })?.1 { return text }
            return nil
        }
        switch notification.type ?? "" {
        case "":
            return nil
        case "m.room.message", "m.room.encrypted":
            let msgtype = contentString("msgtype")
            let body = contentString("body")
            switch (msgtype, body) {
            case ("m.image"?, let body?):
                return room.map { ("IMAGE_FROM_USER_IN_ROOM", [from, body, $0]) } ?? ("IMAGE_FROM_USER", [from, body])
            case ("m.emote"?, let body?):
                return room.map { ("ACTION_FROM_USER_IN_ROOM", [$0, from, body]) } ?? ("ACTION_FROM_USER", [from, body])
            case (_?, let body?):
                return room.map { ("MSG_FROM_USER_IN_ROOM_WITH_CONTENT", [from, $0, body]) } ?? ("MSG_FROM_USER_WITH_CONTENT", [from, body])
            default:
                return room.map { ("MSG_FROM_USER_IN_ROOM", [from, $0]) } ?? ("MSG_FROM_USER", [from])
            }
        case "m.call.invite":
            var video = false
            if case .object(let offer)? = content.last(where: { $0.0 == "offer" })?.1, case .string(let sdp)? = offer.last(where: { $0.0 == "sdp" })?.1 {
                video = sdp.contains("m=video")
            }
            return (video ? "VIDEO_CALL_FROM_USER" : "VOICE_CALL_FROM_USER", [from])
        case "m.room.member":
            guard notification.userIsTarget == true, notification.membership == "invite" else { return nil }
            return room.map { ("USER_INVITE_TO_NAMED_ROOM", [from, $0]) } ?? ("USER_INVITE_TO_CHAT", [from])
        default:
            return ("MSG_FROM_USER", [from])
        }
    }

    /// The payload as sent, shortened to `maximumSize` the way Sygnal shortens it (§3.6): one
    /// character at a time off the longest of the alert text, its body and its `loc-args`, never
    /// a title or a key. `nil` when it cannot be shortened enough (no `aps.alert` text to cut).
    public static func bytes(_ payload: JSONValue) -> [UInt8]? {
        var bytes = payload.bytes
        guard bytes.count > Self.maximumSize else { return bytes }
        guard case .object(var top) = payload, let apsIndex = top.firstIndex(where: { $0.0 == "aps" }), case .object(var aps) = top[apsIndex].1,
            let alertIndex = aps.firstIndex(where: { $0.0 == "alert" })
        else { return nil }
        // No text longer than the whole payload may be survives; cut those first, so a body of
        // half a megabyte is not shortened one character per encoding of the payload.
        var alert = Self.capped(aps[alertIndex].1)
        aps[alertIndex].1 = alert
        top[apsIndex].1 = .object(aps)
        bytes = JSONValue.object(top).bytes
        // Cutting whole characters off strings: the serialised size falls by at least one byte a step.
        while bytes.count > Self.maximumSize {
            guard Self.chopLongest(&alert) else { return nil }
            aps[alertIndex].1 = alert
            top[apsIndex].1 = .object(aps)
            bytes = JSONValue.object(top).bytes
        }
        return bytes
    }

    /// Removes the last character of the longest choppable text of `alert`; `false` when none
    /// is left.
    private static func chopLongest(_ alert: inout JSONValue) -> Bool {
        switch alert {
        case .string(let text):
            guard !text.isEmpty else { return false }
            alert = .string(String(text.unicodeScalars.dropLast()))
            return true
        case .object(var fields):
            // Candidates in Sygnal's order: body, then loc-args by index; ties go to the first.
            var best: (path: (field: Int, argument: Int?), size: Int)?
            if let body = fields.firstIndex(where: { $0.0 == "body" }), case .string(let text) = fields[body].1, !text.isEmpty {
                best = ((body, nil), text.utf8.count)
            }
            if let args = fields.firstIndex(where: { $0.0 == "loc-args" }), case .array(let values) = fields[args].1 {
                for (index, value) in values.enumerated() {
                    if case .string(let text) = value, !text.isEmpty, text.utf8.count > (best?.size ?? 0) {
                        best = ((args, index), text.utf8.count)
                    }
                }
            }
            guard let (path, _) = best else { return false }
            if let argument = path.argument, case .array(var values) = fields[path.field].1, case .string(let text) = values[argument] {
                values[argument] = .string(String(text.unicodeScalars.dropLast()))
                fields[path.field].1 = .array(values)
            } else if case .string(let text) = fields[path.field].1 {
                fields[path.field].1 = .string(String(text.unicodeScalars.dropLast()))
            }
            alert = .object(fields)
            return true
        default:
            return false
        }
    }

    /// The alert with each choppable text cut to at most `maximumSize` UTF-8 bytes.
    private static func capped(_ alert: JSONValue) -> JSONValue {
        func cap(_ value: JSONValue) -> JSONValue {
            guard case .string(let text) = value, text.utf8.count > Self.maximumSize else { return value }
            var size = 0
            let kept = text.unicodeScalars.prefix { scalar in
                size += String(scalar).utf8.count
                return size <= Self.maximumSize
            }
            return .string(String(String.UnicodeScalarView(kept)))
        }
        switch alert {
        case .string:
            return cap(alert)
        case .object(let fields):
            return .object(
                fields.map { key, value in
                    switch key {
                    case "body": return (key, cap(value))
                    case "loc-args":
                        if case .array(let values) = value { return (key, .array(values.map(cap))) }
                        return (key, value)
                    default: return (key, value)
                    }
                }
            )
        default:
            return alert
        }
    }

    static func cut(_ text: String) -> String {
        text.unicodeScalars.count > Self.maximumName ? String(String.UnicodeScalarView(text.unicodeScalars.prefix(Self.maximumName))) : text
    }
}

/// A JSON object whose keys keep their first position when set again, as a Python dict does.
struct OrderedObject {
    var pairs: [(String, JSONValue)]

    /// The fields of `value` when it is an object; empty otherwise.
    init(_ value: JSONValue?) {
        if case .object(let pairs)? = value { self.pairs = pairs } else { self.pairs = [] }
    }

    subscript(key: String) -> JSONValue? {
        get { self.pairs.last { $0.0 == key }?.1 }
        set {
            if let index = self.pairs.firstIndex(where: { $0.0 == key }) {
                if let newValue { self.pairs[index].1 = newValue } else { self.pairs.remove(at: index) }
            } else if let newValue {
                self.pairs.append((key, newValue))
            }
        }
    }
}
