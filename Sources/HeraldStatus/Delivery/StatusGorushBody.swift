import HeraldCore

/// The JSON status-go posts to gorush: Go's `encoding/json`, compact, keys in struct order, no
/// `omitempty`, HTML characters escaped.
public enum StatusGorushBody {
    public static func encode(_ pushes: [StatusPush]) -> [UInt8] {
        var out = Array(#"{"notifications":["#.utf8)
        for (index, push) in pushes.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += Array(#"{"tokens":["#.utf8)
            Self.writeString(push.device.token, into: &out)
            out += Array(#"],"platform":"#.utf8) + Array(String(push.gorushPlatform).utf8)
            out += Array(#","message":"#.utf8)
            Self.writeString(push.message, into: &out)
            out += Array(#","topic":"#.utf8)
            Self.writeString(push.topic, into: &out)
            out += Array(#","data":{"encryptedMessage":"#.utf8)
            Self.writeString(push.encryptedMessage, into: &out)
            out += Array(#","chatId":"#.utf8)
            Self.writeString(push.chatID, into: &out)
            out += Array(#","publicKey":"#.utf8)
            Self.writeString(push.publicKey, into: &out)
            out += Array("}}".utf8)
        }
        out += Array("]}".utf8)
        return out
    }

    /// Go's string escaping (encoding/json since Go 1.22): JSON's own escapes plus `<`, `>`, `&`,
    /// U+2028 and U+2029 as `\u` escapes.
    static func writeString(_ text: String, into out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        func escape(_ value: UInt32) {
            out += Array("\\u".utf8)
            for shift in stride(from: 12, through: 0, by: -4) { out.append(hex[Int((value >> UInt32(shift)) & 0xF)]) }
        }
        out.append(UInt8(ascii: "\""))
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += Array("\\\"".utf8)
            case "\\": out += Array("\\\\".utf8)
            case "\n": out += Array("\\n".utf8)
            case "\r": out += Array("\\r".utf8)
            case "\t": out += Array("\\t".utf8)
            case "\u{08}": out += Array("\\b".utf8)
            case "\u{0C}": out += Array("\\f".utf8)
            case "<", ">", "&", "\u{2028}", "\u{2029}": escape(scalar.value)
            default:
                if scalar.value < 0x20 { escape(scalar.value) } else { out += Array(String(scalar).utf8) }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
