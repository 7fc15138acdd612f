/// The push resource a relay subscription names: `/relay-to/<environment>/<device token>[/<extra>]`
/// (webpush-relay.md §5.1), as toot-relay and Mastodon's webpush-apn-relay take it.
public struct RelayPath: Sendable, Hashable {
    public static let prefix = "/relay-to/"

    /// The environment segment as written: `production` reaches APNs production, anything else
    /// the sandbox, as both reference relays do.
    public var environment: String
    /// The APNs device token, lower-cased hex.
    public var token: String
    /// What follows the token, joined with `/`, for the app (`x`); `nil` when nothing does.
    public var extra: String?

    public var isProduction: Bool { self.environment == "production" }

    public init(environment: String, token: String, extra: String? = nil) {
        self.environment = environment
        self.token = token
        self.extra = extra
    }

    /// Parses a request path (percent-decoding already done) of the relay at `prefix`. A trailing
    /// slash after the token is accepted, and so is an extra part.
    public static func parse(_ path: String, prefix: String = RelayPath.prefix) throws(RelayError) -> RelayPath {
        guard path.hasPrefix(prefix) else { throw .notARelayPath(path) }
        let parts = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 2, !parts[0].isEmpty else { throw .notARelayPath(path) }
        let token = parts[1]
        // APNs device tokens are hex: 32 bytes today, up to 100 allowed for the future.
        guard (2...200).contains(token.utf8.count), token.utf8.count % 2 == 0, token.utf8.allSatisfy(Self.isHexDigit) else {
            throw .badDeviceToken(String(token.prefix(80)))
        }
        let extra = parts.dropFirst(2).joined(separator: "/")
        return RelayPath(environment: String(parts[0]), token: token.lowercased(), extra: extra.isEmpty ? nil : extra)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}
