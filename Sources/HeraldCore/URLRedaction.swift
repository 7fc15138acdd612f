/// Credentials senders put inside URLs (`https://user:password@host`, `?api_key=…`) masked
/// wherever a URL is shown: the configuration, log lines, error messages.
public enum URLRedaction {
    public static let mask = "***"

    /// `text` with the user info and the query of every URL in it replaced by `***`.
    public static func redact(_ text: String) -> String {
        guard text.utf8.count > 3, text.contains("://") else { return text }
        var output: [UInt8] = []
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            guard let start = Self.urlStart(in: bytes, from: index) else {
                output += bytes[index...]
                break
            }
            output += bytes[index..<start.authority]
            var end = start.authority
            while end < bytes.count, !Self.endsURL(bytes[end]) { end += 1 }
            output += Self.redactAfterScheme(bytes[start.authority..<end])
            index = end
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The next `scheme://` at or after `index`: where the part after `//` begins.
    private static func urlStart(in bytes: [UInt8], from index: Int) -> (scheme: Int, authority: Int)? {
        var position = index
        while position + 2 < bytes.count {
            if bytes[position] == UInt8(ascii: ":"), bytes[position + 1] == UInt8(ascii: "/"), bytes[position + 2] == UInt8(ascii: "/") {
                var scheme = position
                while scheme > index, Self.isSchemeByte(bytes[scheme - 1]) { scheme -= 1 }
                if scheme < position { return (scheme, position + 3) }
            }
            position += 1
        }
        return nil
    }

    /// Everything up to the last `@` is user info (a password may hold `/` or `,` even if it
    /// should not), and everything after the first `?` past the host is query.
    private static func redactAfterScheme(_ rest: ArraySlice<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        var hostStart = rest.startIndex
        if let at = rest.lastIndex(of: UInt8(ascii: "@")) {
            output += Array(Self.mask.utf8)
            hostStart = at
        }
        let afterUserInfo = rest[hostStart...]
        guard let question = afterUserInfo.firstIndex(of: UInt8(ascii: "?")) else {
            output += afterUserInfo
            return output
        }
        output += afterUserInfo[..<question]
        output += Array("?\(Self.mask)".utf8)
        if let fragment = afterUserInfo[question...].firstIndex(of: UInt8(ascii: "#")) { output += afterUserInfo[fragment...] }
        return output
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            true
        default:
            false
        }
    }

    /// Where a URL written inside other text stops: white space, quotes, angle brackets. Commas
    /// and brackets may belong to it (an IPv6 host, a careless password), so they do not end it.
    private static func endsURL(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte == 0x7F || [UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: ">"), UInt8(ascii: "<")].contains(byte)
    }
}
