import Foundation

/// An IPv4 or IPv6 network in CIDR notation (`10.0.0.0/8`, `fd00::/8`, or one address), and the
/// ranges no push service lives in.
public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    /// 16 bytes; an IPv4 network is held as its IPv4-mapped IPv6 form (`::ffff:a.b.c.d`), so one
    /// comparison covers a v4 address and the same address mapped into v6.
    let network: [UInt8]
    /// Leading bits that must match, out of 128.
    let prefixLength: Int
    public let description: String

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = Self.bytes(String(parts[0])) else { return nil }
        let isV4 = !parts[0].contains(":")
        let maximum = isV4 ? 32 : 128
        var length = maximum
        if parts.count == 2 {
            guard let given = Int(parts[1]), parts[1].allSatisfy(\.isASCII), (0...maximum).contains(given) else { return nil }
            length = given
        }
        self.prefixLength = length + (isV4 ? 96 : 0)
        self.network = Self.masked(address, bits: self.prefixLength)
        self.description = text
    }

    /// Whether `address` (16 bytes, IPv4 mapped) is in this range.
    func contains(_ address: [UInt8]) -> Bool {
        Self.masked(address, bits: self.prefixLength) == self.network
    }

    /// An address literal as 16 bytes, IPv4 mapped into IPv6; `nil` for anything else.
    static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF] + withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    private static func masked(_ address: [UInt8], bits: Int) -> [UInt8] {
        address.enumerated().map { index, byte in
            let kept = min(max(bits - index * 8, 0), 8)
            return kept == 8 ? byte : byte & ~UInt8(0xFF >> kept)
        }
    }

    /// Whether `address` (16 bytes) is an IPv4 address mapped into IPv6.
    static func isIPv4(_ address: [UInt8]) -> Bool {
        Self.ipv4Mapped.contains(address)
    }

    static let ipv4Mapped = AddressRange("::ffff:0:0/96")!
    /// The well-known NAT64 prefix (RFC 6052): the IPv4 address it carries decides.
    static let nat64 = AddressRange("64:ff9b::/96")!
    /// IPv6 global unicast: anything outside it is no public push service.
    static let globalUnicast = AddressRange("2000::/3")!

    /// Where no public push service is, of the IPv4 networks and of IPv6 global unicast:
    /// loopback, private, shared, link-local, multicast, documentation, benchmarking and reserved
    /// networks, and the IPv6 forms that carry an IPv4 address of their own choosing (6to4, Teredo
    /// and the other IETF assignments of 2001::/23), from the IANA special-purpose registries. An
    /// endpoint resolving only into these is refused unless the operator allows the range.
    public static let nonPublic: [AddressRange] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
        "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
        "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
        "2001::/23", "2001:db8::/32", "2002::/16", "3fff::/20",
    ].map { AddressRange($0)! }
}
