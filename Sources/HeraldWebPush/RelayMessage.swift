import Foundation
import HeraldConfig
import HeraldCore

/// A Web Push message as an application server sent it (RFC 8030 §5), read from its headers
/// and body. The body stays encrypted; only the parameters the app needs to decrypt it are
/// taken from the headers.
public struct RelayMessage: Sendable, Equatable {
    public enum Encoding: Sendable, Equatable {
        /// RFC 8291: the keys travel inside the body.
        case aes128gcm
        /// The drafts before it: the sender's key (`dh` of `Crypto-Key`) and the salt (of
        /// `Encryption`) travel in headers.
        case aesgcm(senderKey: [UInt8], salt: [UInt8])
    }

    public enum Urgency: String, Sendable, Equatable {
        case veryLow = "very-low"
        case low
        case normal
        case high
    }

    /// Largest body taken: push services need take no more (RFC 8030 §7.2).
    public static let maximumBodySize = 4096

    public var encoding: Encoding
    /// Seconds to keep trying, as retained (the sender's, at most `maximumTTL`).
    public var ttl: Int
    public var urgency: Urgency
    public var topic: String?
    public var body: [UInt8]

    /// `headers` maps lower-cased names to every value sent under that name.
    public init(headers: [String: [String]], body: [UInt8], maximumTTL: Int) throws(RelayError) {
        guard body.count <= Self.maximumBodySize else { throw .bodyTooLarge(body.count, limit: Self.maximumBodySize) }
        self.body = body

        let encoding = Self.single(headers["content-encoding"])?.trimmingSpaces
        switch encoding?.lowercased() {
        case "aes128gcm":
            self.encoding = .aes128gcm
        case "aesgcm":
            let cryptoKey = Self.parameters(headers["crypto-key"] ?? [])
            let encryption = Self.parameters(headers["encryption"] ?? [])
            guard let dh = cryptoKey["dh"] else { throw .missingCryptoParameter("a Crypto-Key header with dh=<sender's public key>") }
            guard let saltText = encryption["salt"] else { throw .missingCryptoParameter("an Encryption header with salt=<16 bytes>") }
            guard let senderKey = Self.base64URL(dh), senderKey.count == 65, senderKey.first == 4 else {
                throw .badCryptoParameter("Crypto-Key dh", "must be an uncompressed P-256 public key (65 bytes) in base64url")
            }
            guard let salt = Self.base64URL(saltText), salt.count == 16 else {
                throw .badCryptoParameter("Encryption salt", "must be 16 bytes in base64url")
            }
            self.encoding = .aesgcm(senderKey: senderKey, salt: salt)
        default:
            throw .unsupportedEncoding(encoding)
        }

        guard let ttlText = Self.single(headers["ttl"])?.trimmingSpaces else { throw .missingTTL }
        guard !ttlText.isEmpty, ttlText.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { throw .badTTL(ttlText) }
        // Digits only, so a huge value is just "a long time".
        self.ttl = min(Int(ttlText) ?? Int.max, maximumTTL)

        if let urgency = headers["urgency"] {
            let values = urgency.flatMap { $0.split(separator: ",") }.map { $0.trimmingSpaces.lowercased() }
            guard values.count == 1, let parsed = Urgency(rawValue: values[0]) else { throw .badUrgency(urgency.joined(separator: ", ")) }
            self.urgency = parsed
        } else {
            self.urgency = .normal
        }

        if let topic = Self.single(headers["topic"]) {
            guard (1...32).contains(topic.utf8.count), topic.utf8.allSatisfy(Base64URL.isAlphabet) else { throw .badTopic(topic) }
            self.topic = topic
        } else if headers["topic"] != nil {
            throw .badTopic((headers["topic"] ?? []).joined(separator: ", "))
        }
    }

    /// The one value of a header; `nil` when absent. Several values count as one joined by
    /// commas, which no single-valued header takes.
    private static func single(_ values: [String]?) -> String? {
        guard let values, !values.isEmpty else { return nil }
        return values.joined(separator: ",")
    }

    /// `name=value` items of `Crypto-Key` and `Encryption`, split on `;` and `,` (several keys may
    /// share the header), names lower-cased and spaces trimmed. An item without `=` is ignored,
    /// where both reference relays crash on it.
    static func parameters(_ values: [String]) -> [String: String] {
        var parameters: [String: String] = [:]
        for value in values {
            for item in value.split(whereSeparator: { $0 == ";" || $0 == "," }) {
                guard let equals = item.firstIndex(of: "=") else { continue }
                let name = item[..<equals].trimmingSpaces.lowercased()
                let text = item[item.index(after: equals)...].trimmingSpaces
                // The first wins, as the sender's key comes first in every known sender.
                if parameters[name] == nil { parameters[name] = text }
            }
        }
        return parameters
    }

    /// base64url with or without `=` padding; the standard alphabet's `+` and `/` are refused, as
    /// both reference relays refuse them.
    static func base64URL(_ text: String) -> [UInt8]? {
        Base64URL.decode(text)
    }
}
