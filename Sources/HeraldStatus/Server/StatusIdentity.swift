public import HeraldCore
public import HeraldCrypto

/// The server's secp256k1 identity: clients register against its public key, derive the
/// registration key and grant from it, and accept only answers it signed.
public struct StatusIdentity: Sendable, KeyMaterial {
    public let privateKey: Secp256k1PrivateKey
    public let publicKey: Secp256k1PublicKey
    /// Where push requests arrive (and every key's answers go).
    public let partitionedTopic: ContentTopic
    /// Where registrations arrive.
    public let personalTopic: ContentTopic

    public init(privateKey: Secp256k1PrivateKey) {
        self.privateKey = privateKey
        self.publicKey = privateKey.publicKey
        self.partitionedTopic = ContentTopic.partitioned(self.publicKey)
        self.personalTopic = ContentTopic.personal(self.publicKey)
    }

    /// The hashed form of a public key that status-go stores and queries by: SHAKE-256, 64 bytes,
    /// of the compressed key.
    public static func hashedKey(_ key: Secp256k1PublicKey) -> [UInt8] {
        SHAKE256.hash(key.compressedRepresentation)
    }
}
