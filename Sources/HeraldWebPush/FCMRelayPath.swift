/// The push resource of the FCM variant: `/relay-to-fcm/<app>/<registration token>[/<extra>]`.
public struct FCMRelayPath: Sendable, Hashable {
    public static let prefix = "/relay-to-fcm/"

    public var app: String
    /// The FCM registration token, as sent.
    public var token: String
    public var extra: String?

    public init(app: String, token: String, extra: String? = nil) {
        self.app = app
        self.token = token
        self.extra = extra
    }

    public static func parse(_ path: String) throws(RelayError) -> FCMRelayPath {
        guard path.hasPrefix(Self.prefix) else { throw .notARelayPath(path) }
        let parts = path.dropFirst(Self.prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 2, !parts[0].isEmpty else { throw .notARelayPath(path) }
        let token = parts[1]
        // FCM's own token alphabet and bound (fcm.md §2): anything else FCM would refuse.
        guard (1...4096).contains(token.utf8.count), token.utf8.allSatisfy(Self.isTokenByte) else {
            throw .badRegistrationToken(String(token.prefix(80)))
        }
        let extra = parts.dropFirst(2).joined(separator: "/")
        return FCMRelayPath(app: String(parts[0]), token: String(token), extra: extra.isEmpty ? nil : extra)
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: ":"): true
        default: false
        }
    }
}
