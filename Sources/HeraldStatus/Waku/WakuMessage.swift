import Foundation

/// A Waku message as the nwaku REST API writes it in JSON: the payload in standard base64,
/// `timestamp` in nanoseconds since the epoch.
public struct WakuMessage: Codable, Hashable, Sendable {
    public var payload: [UInt8]
    public var contentTopic: String
    public var version: UInt32
    public var timestamp: Int64?
    public var ephemeral: Bool?

    public init(payload: [UInt8], contentTopic: String, version: UInt32 = 1, timestamp: Int64? = nil, ephemeral: Bool? = nil) {
        self.payload = payload
        self.contentTopic = contentTopic
        self.version = version
        self.timestamp = timestamp
        self.ephemeral = ephemeral
    }

    enum CodingKeys: String, CodingKey {
        case payload, contentTopic, version, timestamp, ephemeral
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .payload)
        guard let payload = Data(base64Encoded: text) else {
            throw DecodingError.dataCorruptedError(forKey: .payload, in: container, debugDescription: "payload is not standard base64")
        }
        self.payload = Array(payload)
        self.contentTopic = try container.decode(String.self, forKey: .contentTopic)
        // nwaku writes version 0 as an absent field.
        self.version = try container.decodeIfPresent(UInt32.self, forKey: .version) ?? 0
        self.timestamp = try container.decodeIfPresent(Int64.self, forKey: .timestamp)
        self.ephemeral = try container.decodeIfPresent(Bool.self, forKey: .ephemeral)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Data(self.payload).base64EncodedString(), forKey: .payload)
        try container.encode(self.contentTopic, forKey: .contentTopic)
        try container.encode(self.version, forKey: .version)
        try container.encodeIfPresent(self.timestamp, forKey: .timestamp)
        try container.encodeIfPresent(self.ephemeral, forKey: .ephemeral)
    }
}
