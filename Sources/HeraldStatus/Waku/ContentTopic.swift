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

    public init(name: String) {
        self.name = name
        self.description = "/waku/1/0x" + Hex.encode(Keccak256.hash(name.utf8).prefix(4)) + "/rfc26"
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
