public import HeraldCore
import CSecp256k1

/// A secp256k1 secret scalar in 1..<n, checked on creation.
///
/// Not `Equatable`, and its `description` hides the key, so it cannot leak through a log line or a test failure.
public struct Secp256k1PrivateKey: Sendable, KeyMaterial {
    public static let byteCount = 32

    /// The 32-byte big-endian scalar.
    public let rawRepresentation: [UInt8]

    /// A new random key from `SystemRandomNumberGenerator`; draws again in the (≈2⁻¹²⁸) case of a value outside 1..<n.
    public init() {
        var generator = SystemRandomNumberGenerator()
        while true {
            var candidate = [UInt8](repeating: 0, count: Self.byteCount)
            for index in candidate.indices { candidate[index] = generator.next() }
            if secp256k1_ec_seckey_verify(Secp256k1Context.shared.pointer, candidate) == 1 {
                self.rawRepresentation = candidate
                return
            }
        }
    }

    /// Reads a 32-byte big-endian scalar; throws unless it is in 1..<n.
    public init(rawRepresentation: some Collection<UInt8>) throws {
        let bytes = Array(rawRepresentation)
        guard bytes.count == Self.byteCount else {
            throw CryptoError(.invalidPrivateKey, "a private key is 32 bytes, not \(bytes.count)")
        }
        guard secp256k1_ec_seckey_verify(Secp256k1Context.shared.pointer, bytes) == 1 else {
            throw CryptoError(.invalidPrivateKey, "the private key is zero or not below the curve order")
        }
        self.rawRepresentation = bytes
    }

    /// The matching public key, `self · G`.
    public var publicKey: Secp256k1PublicKey {
        var key = secp256k1_pubkey()
        let created = secp256k1_ec_pubkey_create(Secp256k1Context.shared.pointer, &key, self.rawRepresentation)
        precondition(created == 1, "secp256k1_ec_pubkey_create failed for a checked key")
        return Secp256k1PublicKey(parsed: key)
    }

    /// Signs a 32-byte digest: deterministic nonce (RFC 6979), low S, and the recovery id as V.
    ///
    /// V is 0 or 1 except when R ≥ n, which happens with probability about 2⁻¹²⁷; V is then 2 or 3, which
    /// libsecp256k1 and go-ethereum both accept on recovery.
    public func signature(forDigest digest: some Collection<UInt8>) throws -> RecoverableSignature {
        let digest = Array(digest)
        guard digest.count == 32 else {
            throw CryptoError(.invalidDigest, "a digest to sign is 32 bytes, not \(digest.count)")
        }
        let context = Secp256k1Context.shared.pointer
        var signature = secp256k1_ecdsa_recoverable_signature()
        guard secp256k1_ecdsa_sign_recoverable(context, &signature, digest, self.rawRepresentation, nil, nil) == 1
        else {
            throw CryptoError(.signingFailed, "secp256k1_ecdsa_sign_recoverable refused the digest")
        }
        var compact = [UInt8](repeating: 0, count: 64)
        var recoveryID: Int32 = 0
        secp256k1_ecdsa_recoverable_signature_serialize_compact(context, &compact, &recoveryID, &signature)
        return try RecoverableSignature(rawRepresentation: compact + [UInt8(recoveryID)])
    }

}
