public import HeraldCore
import HeraldDelivery

/// The JSON Sygnal's WebPush pushkin encrypts for a browser or a UnifiedPush distributor
/// (docs/matrix-push-facts.md §5): the client's `default_payload`, the notification's truthy
/// fields as sent, the counts, and `content` without `formatted_body`, a long `body` cut and a long
/// `ciphertext` dropped.
public enum MatrixWebPushPayload {
    /// Unicode scalars of `content.body` kept whole; longer ones become their first 999 and `…`.
    static let maximumBody = 1000
    /// A `content.ciphertext` longer than this many scalars is dropped (an encrypted event's
    /// client fetches it anyway).
    static let maximumCiphertext = 2000

    /// Copied when truthy (Python's truth: not null, false, 0, "", [] or {}), whatever their type.
    static let copied = ["room_id", "room_name", "room_alias", "membership", "event_id", "sender", "sender_display_name", "user_is_target", "type"]

    public static func build(_ notification: MatrixNotification, device: MatrixNotification.Device) -> JSONValue {
        var payload = OrderedObject(device.defaultPayload)
        for name in Self.copied {
            if let value = notification.fields.last(where: { $0.0 == name })?.1, Self.isTruthy(value) { payload[name] = value }
        }
        if let unread = notification.unread { payload["unread"] = .number(Double(unread)) }
        if let missed = notification.missedCalls { payload["missed_calls"] = .number(Double(missed)) }
        if let content = notification.content, !content.isEmpty {
            var fields = OrderedObject(.object(content))
            fields["formatted_body"] = nil
            if case .string(let body)? = fields["body"], body.unicodeScalars.count > Self.maximumBody {
                fields["body"] = .string(String(String.UnicodeScalarView(body.unicodeScalars.prefix(Self.maximumBody - 1))) + "…")
            }
            if case .string(let ciphertext)? = fields["ciphertext"], ciphertext.unicodeScalars.count > Self.maximumCiphertext {
                fields["ciphertext"] = nil
            }
            payload["content"] = .object(fields.pairs)
        }
        return .object(payload.pairs)
    }

    /// The payload as sent: within one Web Push record. Sygnal would send a larger one as
    /// several records, which RFC 8291 forbids and push services refuse, so `content` goes first
    /// (the client fetches the event by its id); `nil` when even that is too large.
    public static func bytes(_ payload: JSONValue) -> [UInt8]? {
        let bytes = payload.bytes
        if bytes.count <= WebPushRequest.maximumPayload { return bytes }
        var shorter = OrderedObject(payload)
        shorter["content"] = nil
        let without = JSONValue.object(shorter.pairs).bytes
        return without.count <= WebPushRequest.maximumPayload ? without : nil
    }

    static func isTruthy(_ value: JSONValue) -> Bool {
        switch value {
        case .null: false
        case .bool(let flag): flag
        case .number(let number): number != 0
        case .string(let text): !text.isEmpty
        case .array(let items): !items.isEmpty
        case .object(let pairs): !pairs.isEmpty
        }
    }
}
