/// A DIDComm v1 message type as Aries agents write it, matched as aries.md §7 says: the
/// document URI `https://didcomm.org/` (or the legacy `did:sov:BzCbsNYhMrjHiqZDTUASHg;spec/`),
/// the protocol name, major version 1 with any minor version, and the message name.
public struct AriesMessageType: Sendable, Hashable {
    static let documentURI = "https://didcomm.org/"
    static let legacyDocumentURI = "did:sov:BzCbsNYhMrjHiqZDTUASHg;spec/"

    public var `protocol`: AriesProtocol
    public var name: String

    public init(protocol: AriesProtocol, name: String) {
        self.protocol = `protocol`
        self.name = name
    }

    /// `nil` for a type of another protocol, another major version or another document URI.
    public init?(_ text: String) {
        let rest: Substring
        if text.hasPrefix(Self.documentURI) {
            rest = text.dropFirst(Self.documentURI.count)
        } else if text.hasPrefix(Self.legacyDocumentURI) {
            rest = text.dropFirst(Self.legacyDocumentURI.count)
        } else {
            return nil
        }
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, let kind = AriesProtocol(rawValue: String(parts[0])), !parts[2].isEmpty else { return nil }
        let version = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        guard version.count == 2, version[0] == "1", !version[1].isEmpty, version[1].allSatisfy(\.isNumber) else { return nil }
        self.init(protocol: kind, name: String(parts[2]))
    }

    /// Whether `text` is an ack: RFC 0015's `notification/1.x/ack`, or adopted into either
    /// push-notification protocol.
    public static func isAck(_ text: String) -> Bool {
        if let type = AriesMessageType(text) { return type.name == "ack" && type.protocol != .discoverFeatures }
        for prefix in [Self.documentURI, Self.legacyDocumentURI] where text.hasPrefix(prefix) {
            let parts = text.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
            return parts.count == 3 && parts[0] == "notification" && parts[1].hasPrefix("1.") && parts[2] == "ack"
        }
        return false
    }

    /// The type Herald writes: the modern document URI, version 1.0.
    public var text: String { "\(self.protocol.uri)/\(self.name)" }
}

/// The protocols of aries.md, and Discover Features, which advertises them.
public enum AriesProtocol: String, Sendable, Hashable, CaseIterable {
    case apns = "push-notifications-apns"
    case fcm = "push-notifications-fcm"
    case discoverFeatures = "discover-features"

    /// The protocol URI Herald advertises and writes (`…/1.0`).
    public var uri: String { "https://didcomm.org/\(self.rawValue)/1.0" }
}
