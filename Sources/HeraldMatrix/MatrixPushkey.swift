import Foundation

/// A pushkey as an APNs device token: clients register the base64 of the token's bytes, and
/// Sygnal sends their hex (docs/matrix-push-facts.md §3.2). Strict where Sygnal is lenient: a
/// pushkey that is not padded standard base64 is no token (Sygnal answers 500 for it, or decodes
/// a hex pushkey into 48 wrong bytes); Herald rejects it so the homeserver drops the pusher.
public enum MatrixPushkey {
    public static func apnsToken(_ pushkey: String) -> String? {
        guard pushkey.utf8.count % 4 == 0, pushkey.utf8.allSatisfy(Self.isBase64), let bytes = Data(base64Encoded: pushkey), !bytes.isEmpty else {
            return nil
        }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    private static func isBase64(_ byte: UInt8) -> Bool {
        (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "=")
    }
}
