public import HeraldCrypto
import HeraldCore

/// The Waku content topics of the Status push protocol (status-go `protocol/transport/topic.go`,
/// `wakuv2/common/topic.go`): a topic name hashes to 4 bytes, written `/waku/1/0x<hex>/rfc26`.
public struct ContentTopic: Hashable, Sendable, CustomStringConvertible {
    static let discoveryPrefix = "contact-discovery-"
    /// Partitioned topics spread keys over this many names.
    static let partitionCount = 5000

    /// The name the topic was derived from.
    public let name: String
    /// `/waku/1/0x<8 hex digits>/rfc26`.
    public let description: String

    /// The 4 topic bytes as a big-endian integer.
    public let value: UInt32

    public init(name: String) {
        let bytes = Keccak256.hash(name.utf8).prefix(4)
        self.name = name
        self.value = bytes.reduce(0) { $0 << 8 | UInt32($1) }
        self.description = Self.prefix + Hex.encode(bytes) + Self.suffix
    }

    static let prefix = "/waku/1/0x"
    static let suffix = "/rfc26"

    /// The 4 topic bytes of a content topic written `/waku/1/0x<8 hex digits>/rfc26`; `nil` for
    /// any other form.
    public static func value(of contentTopic: String) -> UInt32? {
        let utf8 = contentTopic.utf8
        guard utf8.count == Self.prefix.utf8.count + 8 + Self.suffix.utf8.count,
            contentTopic.hasPrefix(Self.prefix), contentTopic.hasSuffix(Self.suffix)
        else { return nil }
        let digits = utf8.dropFirst(Self.prefix.utf8.count).prefix(8)
        guard let bytes = Hex.decode(String(decoding: digits, as: UTF8.self)) else { return nil }
        return bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// `contact-discovery-<X mod 5000>`: where answers to `key` go, ECIES-encrypted to it.
    public static func partitioned(_ key: Secp256k1PublicKey) -> ContentTopic {
        var remainder = 0
        for byte in key.x { remainder = (remainder << 8 | Int(byte)) % Self.partitionCount }
        return ContentTopic(name: Self.discoveryPrefix + String(remainder))
    }

    /// `contact-discovery-<hex of the uncompressed key>` (no `0x`): where registrations reach a
    /// server.
    public static func personal(_ key: Secp256k1PublicKey) -> ContentTopic {
        ContentTopic(name: Self.discoveryPrefix + Hex.encode(key.uncompressedRepresentation))
    }

    /// A client's query topic: the hex of its 64-byte hashed key (no `0x`, unlike the spec text).
    /// Messages on it are encrypted with `TopicKey(topicName: name)`.
    public static func query(hashedKey: [UInt8]) -> ContentTopic {
        ContentTopic(name: Hex.encode(hashedKey))
    }
}
