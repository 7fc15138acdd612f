import Foundation
public import HeraldCrypto

/// An answer as the server publishes it: AMM signed by the server, inside a Waku payload signed
/// by the server, ECIES-encrypted to the recipient, on the recipient's partitioned topic.
public enum StatusReply {
    public static func message(
        type: Protobuf_ApplicationMetadataMessage.TypeEnum,
        payload: [UInt8],
        from server: Secp256k1PrivateKey,
        to recipient: Secp256k1PublicKey,
        timestamp: Int64
    ) throws -> WakuMessage {
        let application = try ApplicationMessage.encode(type: type, payload: payload, signedBy: server)
        let plaintext = try WakuPayload.encode(application, signedBy: server)
        return WakuMessage(
            payload: try WakuEnvelope.sealAsymmetric(plaintext, to: recipient),
            contentTopic: ContentTopic.partitioned(recipient).description,
            version: 1,
            timestamp: timestamp
        )
    }

    /// The same with the random parts given, for byte-exact comparison with other implementations.
    public static func message(
        type: Protobuf_ApplicationMetadataMessage.TypeEnum,
        payload: [UInt8],
        from server: Secp256k1PrivateKey,
        to recipient: Secp256k1PublicKey,
        padding: [UInt8],
        ephemeralKey: Secp256k1PrivateKey,
        iv: [UInt8],
        timestamp: Int64
    ) throws -> WakuMessage {
        let application = try ApplicationMessage.encode(type: type, payload: payload, signedBy: server)
        let plaintext = try WakuPayload.encode(application, signedBy: server, padding: padding)
        return WakuMessage(
            payload: try ECIES.encrypt(plaintext, to: recipient, ephemeralKey: ephemeralKey, iv: iv),
            contentTopic: ContentTopic.partitioned(recipient).description,
            version: 1,
            timestamp: timestamp
        )
    }
}
