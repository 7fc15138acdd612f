import SwiftProtobuf
import Foundation
import HeraldCore
public import HeraldCrypto

/// The client side of the protocol, as status-go's `pushnotificationclient` builds its messages:
/// registrations, unregistrations, queries and push requests addressed to a server, and the
/// opening of the server's answers. The load generator and the tests speak to Herald with it.
public struct StatusClient: Sendable {
    public let identity: Secp256k1PrivateKey
    public let server: Secp256k1PublicKey

    public init(identity: Secp256k1PrivateKey = Secp256k1PrivateKey(), server: Secp256k1PublicKey) {
        self.identity = identity
        self.server = server
    }

    public var publicKey: Secp256k1PublicKey { self.identity.publicKey }
    public var hashedKey: [UInt8] { StatusIdentity.hashedKey(self.identity.publicKey) }

    /// The grant over `accessToken` for this client and server (status.md §3.6).
    public func grant(accessToken: String) throws -> [UInt8] {
        var digest = Keccak256()
        digest.update(self.publicKey.compressedRepresentation)
        digest.update(self.server.compressedRepresentation)
        digest.update(accessToken.utf8)
        return try self.identity.signature(forDigest: digest.finalize()).rawRepresentation
    }

    /// A registration as status-go sends it, grant included; `configure` adjusts fields first.
    public func registration(
        installationID: String,
        version: UInt64,
        accessToken: String,
        deviceToken: String,
        tokenType: Protobuf_PushNotificationRegistration.TokenType = .apnToken,
        apnTopic: String = "",
        configure: (inout Protobuf_PushNotificationRegistration) -> Void = { _ in }
    ) throws -> WakuMessage {
        var registration = Protobuf_PushNotificationRegistration()
        registration.installationID = installationID
        registration.version = version
        registration.accessToken = accessToken
        registration.deviceToken = deviceToken
        registration.tokenType = tokenType
        registration.apnTopic = apnTopic
        registration.enabled = true
        registration.grant = Data(try self.grant(accessToken: accessToken))
        configure(&registration)
        return try self.registration(registration)
    }

    /// An unregistration: version, installation id and the grant over an empty token (§5.1).
    public func unregistration(installationID: String, version: UInt64) throws -> WakuMessage {
        var registration = Protobuf_PushNotificationRegistration()
        registration.installationID = installationID
        registration.version = version
        registration.unregister = true
        registration.grant = Data(try self.grant(accessToken: ""))
        return try self.registration(registration)
    }

    /// Encrypts `registration` to the server and sends it on its personal topic.
    public func registration(_ registration: Protobuf_PushNotificationRegistration) throws -> WakuMessage {
        let key = try ECDH.sharedSecret(privateKey: self.identity, publicKey: self.server)
        let blob = try AESGCMFrame.seal(try registration.serializedBytes() as [UInt8], key: key)
        return try self.message(.pushNotificationRegistration, blob, signedBy: self.identity, topic: ContentTopic.personal(self.server))
    }

    /// A query for `target`'s registrations, signed by `ephemeral`, on the target's query topic.
    public func query(for target: [UInt8], ephemeral: Secp256k1PrivateKey) throws -> WakuMessage {
        var query = Protobuf_PushNotificationQuery()
        query.publicKeys = [Data(target)]
        let topic = ContentTopic.query(hashedKey: target)
        let amm = try ApplicationMessage.encode(type: .pushNotificationQuery, payload: try query.serializedBytes(), signedBy: ephemeral)
        let plaintext = try WakuPayload.encode(amm, signedBy: self.identity)
        let key = try TopicKey(topicName: topic.name).rawRepresentation
        return WakuMessage(payload: try WakuEnvelope.sealSymmetric(plaintext, key: key), contentTopic: topic.description, version: 1)
    }

    /// A push request signed by `ephemeral`, ECIES to the server on its partitioned topic.
    public func pushRequest(_ request: Protobuf_PushNotificationRequest, ephemeral: Secp256k1PrivateKey) throws -> WakuMessage {
        try self.message(.pushNotificationRequest, try request.serializedBytes(), signedBy: ephemeral, topic: ContentTopic.partitioned(self.server))
    }

    /// SHAKE-256/64 of a string, as clients hash chat ids and `0x04…` keys.
    public static func hashed(_ text: String) -> [UInt8] {
        SHAKE256.hash(text.utf8)
    }

    /// The `0x04…` key string of a public key.
    public static func keyString(_ key: Secp256k1PublicKey) -> String {
        "0x" + Hex.encode(key.uncompressedRepresentation)
    }

    private func message(
        _ type: Protobuf_ApplicationMetadataMessage.TypeEnum,
        _ payload: [UInt8],
        signedBy signer: Secp256k1PrivateKey,
        topic: ContentTopic
    ) throws -> WakuMessage {
        let amm = try ApplicationMessage.encode(type: type, payload: payload, signedBy: signer)
        // status-go signs the Waku payload with the node's identity, whoever signed the AMM.
        let plaintext = try WakuPayload.encode(amm, signedBy: self.identity)
        return WakuMessage(payload: try WakuEnvelope.sealAsymmetric(plaintext, to: self.server), contentTopic: topic.description, version: 1)
    }
}

/// A server answer opened by its recipient.
public struct StatusAnswer: Sendable {
    public let type: Int
    public let payload: [UInt8]
    /// Who signed the AMM; clients accept only their server.
    public let signer: Secp256k1PublicKey?
    public let contentTopic: String

    /// Opens `message` with `key` (the client identity or the ephemeral key it was sent to).
    public init(_ message: WakuMessage, openedWith key: Secp256k1PrivateKey) throws {
        let plaintext = try WakuEnvelope.openAsymmetric(message.payload, using: key)
        let payload = try WakuPayload(decoding: plaintext)
        // status-go drops unsigned payloads, and senders pad to a multiple of 256 bytes.
        guard payload.signer != nil, plaintext.count % 256 == 0 else {
            throw StatusError(.unsigned, "an answer must be a signed, padded Waku payload")
        }
        let amm = try ApplicationMessage(decoding: payload.data, transportSigner: payload.signer)
        guard payload.signer == amm.signer else {
            throw StatusError(.invalidApplicationMessage, "the Waku payload and the AMM were signed by different keys")
        }
        self.type = amm.type
        self.payload = amm.payload
        self.signer = amm.signer
        self.contentTopic = message.contentTopic
    }

    public func registrationResponse() throws -> Protobuf_PushNotificationRegistrationResponse {
        try Protobuf_PushNotificationRegistrationResponse(serializedBytes: self.payload)
    }

    public func queryResponse() throws -> Protobuf_PushNotificationQueryResponse {
        try Protobuf_PushNotificationQueryResponse(serializedBytes: self.payload)
    }

    public func pushResponse() throws -> Protobuf_PushNotificationResponse {
        try Protobuf_PushNotificationResponse(serializedBytes: self.payload)
    }
}
