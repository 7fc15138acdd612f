import Foundation

/// base64url (RFC 4648 §5), the encoding of keys and tokens in Web Push, VAPID, JWTs and DIDComm.
public enum Base64URL {
    /// Decodes with or without `=` padding. The standard alphabet's `+` and `/` are refused unless
    /// `acceptingStandardAlphabet` (some agents write either).
    public static func decode(_ text: some StringProtocol, acceptingStandardAlphabet: Bool = false) -> [UInt8]? {
        var unpadded = Array(text.utf8)
        while unpadded.last == UInt8(ascii: "=") { unpadded.removeLast() }
        guard unpadded.count % 4 != 1 else { return nil }
        // Byte by byte: Foundation's string replacing costs microseconds a header on Linux.
        var standard = [UInt8]()
        standard.reserveCapacity(unpadded.count + 3)
        for byte in unpadded {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                standard.append(byte)
            case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
            case UInt8(ascii: "+"), UInt8(ascii: "/"):
                guard acceptingStandardAlphabet else { return nil }
                standard.append(byte)
            default: return nil
            }
        }
        standard += Array(repeating: UInt8(ascii: "="), count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: Data(standard)).map(Array.init)
    }

    /// Whether `byte` is one of base64url's 64 characters (padding is not).
    public static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// Encodes without padding unless `padded`.
    public static func encode(_ bytes: some Sequence<UInt8>, padded: Bool = false) -> String {
        var text = Array(Data(bytes).base64EncodedString().utf8)
        if !padded { while text.last == UInt8(ascii: "=") { text.removeLast() } }
        for index in text.indices {
            if text[index] == UInt8(ascii: "+") { text[index] = UInt8(ascii: "-") } else if text[index] == UInt8(ascii: "/") { text[index] = UInt8(ascii: "_") }
        }
        return String(decoding: text, as: UTF8.self)
    }
}
