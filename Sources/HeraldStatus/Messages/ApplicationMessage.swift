import Foundation
public import HeraldCrypto
import SwiftProtobuf

/// A received `ApplicationMetadataMessage` with its signer and message id (status-go
/// `protocol/v1/status_message.go` `HandleApplicationLayer`).
public struct ApplicationMessage: Sendable {
    /// The AMM type number; the push server handles 16, 18 and 20.
    public let type: Int
    public let payload: [UInt8]
    /// Recovered from the AMM signature over Keccak-256(`payload`); the Waku payload's signer
    /// when the AMM carries no signature.
    public let signer: Secp256k1PublicKey?
    /// Keccak-256(uncompressed signer ‖ AMM bytes as received), or of the bytes alone when the
    /// AMM is unsigned. Computed over the received bytes, never a re-encoding.
    public let id: [UInt8]

    public init(decoding bytes: [UInt8], transportSigner: Secp256k1PublicKey?) throws(StatusError) {
        let message: Protobuf_ApplicationMetadataMessage
        do {
            message = try Protobuf_ApplicationMetadataMessage(serializedBytes: bytes)
        } catch {
            throw StatusError(.invalidApplicationMessage, "the ApplicationMetadataMessage does not decode: \(error)")
        }
        self.type = message.type.rawValue
        self.payload = Array(message.payload)
        if message.signature.isEmpty {
            self.signer = transportSigner
            self.id = Keccak256.hash(bytes)
            return
        }
        do {
            let signature = try RecoverableSignature(rawRepresentation: message.signature)
            let signer = try signature.recoverPublicKey(fromDigest: Keccak256.hash(message.payload))
            self.signer = signer
            var hasher = Keccak256()
            hasher.update(signer.uncompressedRepresentation)
            hasher.update(bytes)
            self.id = hasher.finalize()
        } catch {
            throw StatusError(.invalidApplicationMessage, "the ApplicationMetadataMessage signature does not recover: \(error)")
        }
    }

    /// Signs `payload` with `key` and encodes fields 1–3 only: an AMM with a field 4 would be
    /// filed by status-go clients as an incomplete segment and dropped (status.md §4.7).
    public static func encode(type: Protobuf_ApplicationMetadataMessage.TypeEnum, payload: [UInt8], signedBy key: Secp256k1PrivateKey) throws -> [UInt8] {
        var message = Protobuf_ApplicationMetadataMessage()
        message.signature = Data(try key.signature(forDigest: Keccak256.hash(payload)).rawRepresentation)
        message.payload = Data(payload)
        message.type = type
        return try message.serializedBytes()
    }
}
