import CSecp256k1

/// A 65-byte recoverable ECDSA signature `R(32) ‖ S(32) ‖ V(1)` as Ethereum and Status write it, V being the
/// recovery id (0 or 1 from signers, not 27/28).
///
/// Parsing follows go-ethereum's cgo `secp256k1.RecoverPubkey`: V must be below 4 and R and S below the curve order;
/// a high S is accepted. A zero R or S parses but fails to recover.
public struct RecoverableSignature: Sendable, Hashable {
    public static let byteCount = 65

    /// `R ‖ S ‖ V`.
    public let rawRepresentation: [UInt8]

    public init(rawRepresentation: some Collection<UInt8>) throws {
        let bytes = Array(rawRepresentation)
        guard bytes.count == Self.byteCount else {
            throw CryptoError(.invalidSignature, "a recoverable signature is 65 bytes, not \(bytes.count)")
        }
        guard bytes[64] < 4 else {
            throw CryptoError(.invalidSignature, "the recovery id V is \(bytes[64]), not 0...3")
        }
        var parsed = secp256k1_ecdsa_recoverable_signature()
        guard
            secp256k1_ecdsa_recoverable_signature_parse_compact(
                Secp256k1Context.shared.pointer,
                &parsed,
                bytes,
                Int32(bytes[64])
            ) == 1
        else {
            throw CryptoError(.invalidSignature, "R or S is not below the curve order")
        }
        self.rawRepresentation = bytes
    }

    public var r: ArraySlice<UInt8> { self.rawRepresentation[0..<32] }
    public var s: ArraySlice<UInt8> { self.rawRepresentation[32..<64] }
    /// V, the recovery id, 0...3.
    public var recoveryID: Int { Int(self.rawRepresentation[64]) }

    /// The public key that made this signature over `digest` (32 bytes). Throws `.recoveryFailed` when there is
    /// none; a signature altered in R or S usually recovers a different key instead, so callers compare the result
    /// with the key they expect.
    public func recoverPublicKey(fromDigest digest: some Collection<UInt8>) throws -> Secp256k1PublicKey {
        let digest = Array(digest)
        guard digest.count == 32 else {
            throw CryptoError(.invalidDigest, "a digest to recover from is 32 bytes, not \(digest.count)")
        }
        let context = Secp256k1Context.shared.pointer
        var parsed = secp256k1_ecdsa_recoverable_signature()
        let didParse = secp256k1_ecdsa_recoverable_signature_parse_compact(
            context,
            &parsed,
            self.rawRepresentation,
            Int32(self.rawRepresentation[64])
        )
        precondition(didParse == 1, "a checked signature no longer parses")
        var key = secp256k1_pubkey()
        guard secp256k1_ecdsa_recover(context, &key, &parsed, digest) == 1 else {
            throw CryptoError(.recoveryFailed, "no public key recovers from this signature and digest")
        }
        return Secp256k1PublicKey(parsed: key)
    }

    /// Whether `publicKey` made this signature over `digest`: recovery, then point equality, as status-go checks
    /// signers.
    public func isValid(forDigest digest: some Collection<UInt8>, publicKey: Secp256k1PublicKey) -> Bool {
        (try? self.recoverPublicKey(fromDigest: digest)) == publicKey
    }
}
