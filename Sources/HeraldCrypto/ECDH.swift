import CSecp256k1

/// secp256k1 Diffie-Hellman as go-ethereum's ECIES `GenerateShared(pub, 16, 16)` computes it and Status uses it for
/// AES-256-GCM keys: the affine X coordinate of `privateKey · publicKey`, big-endian, left-padded to 32 bytes, with no
/// hash or KDF applied.
public enum ECDH {
    public static let sharedSecretByteCount = 32

    /// The raw 32-byte X coordinate of `privateKey · publicKey`. Symmetric: `ECDH(a, B) == ECDH(b, A)`.
    public static func sharedSecret(
        privateKey: Secp256k1PrivateKey,
        publicKey: Secp256k1PublicKey
    ) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Self.sharedSecretByteCount)
        let succeeded = publicKey.withParsed { point in
            // libsecp256k1's default hashes the point with SHA-256; this hash function keeps X as it is (as
            // go-ethereum's cgo build does), x32 being already big-endian and 32 bytes.
            secp256k1_ecdh(
                Secp256k1Context.shared.pointer,
                &output,
                &point,
                privateKey.rawRepresentation,
                { output, x32, _, _ in
                    guard let output, let x32 else { return 0 }
                    output.update(from: x32, count: 32)
                    return 1
                },
                nil
            )
        }
        // The group has prime order and both inputs are checked, so the product is never the point at infinity;
        // libsecp256k1 returns 0 only for an invalid scalar.
        guard succeeded == 1 else {
            throw CryptoError(.sharedSecretFailed, "secp256k1_ecdh failed")
        }
        return output
    }
}
