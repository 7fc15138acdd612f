/// Which strings `github.com/google/uuid` `Parse` (v1.6.0) accepts, as status-go checks
/// installation ids and access tokens with it (status.md §5.3). Lengths are in bytes; version and
/// variant bits are not checked.
public enum GoUUID {
    public static func isValid(_ text: String) -> Bool {
        var bytes = Array(text.utf8)
        switch bytes.count {
        case 36:
            break
        case 45:
            guard String(decoding: bytes.prefix(9), as: UTF8.self).lowercased() == "urn:uuid:" else { return false }
            bytes.removeFirst(9)
        case 38:
            // Go skips the first byte and never reads the last: neither has to be a brace.
            bytes = Array(bytes[1..<37])
        case 32:
            return bytes.allSatisfy(Self.isHexDigit)
        default:
            return false
        }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard Self.isHexDigit(byte) else { return false }
            }
        }
        return true
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }
}
