/// The APNs payload toot-relay's apps decode (webpush-relay.md §5.3): a fixed alert the app's
/// notification service extension replaces, the still-encrypted body as `p`, for `aesgcm` the
/// sender's key and salt as `k` and `s`, all in extended Z85, and the path's extra part as `x`.
public enum RelayPayload {
    /// APNs' limit on an alert's payload.
    public static let limit = 4096

    /// U+1F3BA, as both reference relays send it.
    static let prefix = Array(#"{"aps":{"alert":"🎺","content-available":1,"mutable-content":1}"#.utf8)

    /// The payload's JSON. Z85 needs no escaping (its alphabet has neither `"` nor `\`), and
    /// nothing is escaped that JSON does not require, since every byte counts against APNs'
    /// 4 KB.
    public static func encode(_ message: RelayMessage, extra: String?) -> [UInt8] {
        var json = Self.prefix
        json.reserveCapacity(Self.prefix.count + Z85Extended.encodedLength(of: message.body.count) + 160)
        func field(_ name: String, _ value: String) {
            json += Array(#","\#(name)":""#.utf8)
            json += Array(value.utf8)
            json.append(UInt8(ascii: "\""))
        }
        if case .aesgcm(let senderKey, let salt) = message.encoding {
            field("k", Z85Extended.encode(senderKey))
            field("s", Z85Extended.encode(salt))
        }
        field("p", Z85Extended.encode(message.body))
        if let extra {
            json += Array(#","x":"#.utf8)
            json += Self.jsonString(extra)
        }
        json.append(UInt8(ascii: "}"))
        return json
    }

    /// The payload size a body of `count` bytes makes, without building it.
    public static func size(bodyCount count: Int, encoding: RelayMessage.Encoding, extra: String?) -> Int {
        var size = Self.prefix.count + 1 + 7 + Z85Extended.encodedLength(of: count)
        if case .aesgcm(let senderKey, let salt) = encoding {
            size += 7 + Z85Extended.encodedLength(of: senderKey.count) + 7 + Z85Extended.encodedLength(of: salt.count)
        }
        if let extra { size += 5 + Self.jsonString(extra).count }
        return size
    }

    /// A JSON string literal escaping only what JSON requires: the extra part comes from the
    /// request path and may hold anything.
    static func jsonString(_ text: String) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
        return out
    }
}

extension RelayPayload {
    /// The `,"oversize":1` alert of the `reduced` size policy: no `p`, so the app shows its own
    /// text; `x` still says which account it was for.
    public static func reduced(extra: String?) -> [UInt8] {
        var json = Self.prefix + Array(#","oversize":1"#.utf8)
        if let extra {
            json += Array(#","x":"#.utf8)
            json += Self.jsonString(extra)
        }
        json.append(UInt8(ascii: "}"))
        return json
    }
}
