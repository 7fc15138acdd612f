public import HeraldCore

/// An error from `HeraldCrypto`: a stable code for logs, metric labels and wire tables, and a
/// message for people.
public struct CryptoError: CodedError {
    public enum Code: String, Sendable {
        /// A secret key is not 32 bytes, is zero, or is not below the curve order.
        case invalidPrivateKey = "crypto.invalid_private_key"
        /// A public key has the wrong length or prefix, or is not a point on secp256k1.
        case invalidPublicKey = "crypto.invalid_public_key"
        /// A recoverable signature is not 65 bytes, has V outside 0...3, or has R or S not below the curve order.
        case invalidSignature = "crypto.invalid_signature"
        /// A digest to sign or recover from is not exactly 32 bytes.
        case invalidDigest = "crypto.invalid_digest"
        /// No public key could be recovered from a well-formed signature and digest.
        case recoveryFailed = "crypto.recovery_failed"
        /// libsecp256k1 refused to sign.
        case signingFailed = "crypto.signing_failed"
        /// The ECDH shared point could not be computed.
        case sharedSecretFailed = "crypto.shared_secret_failed"
        /// A symmetric key has a length the cipher does not take.
        case invalidSymmetricKey = "crypto.invalid_symmetric_key"
        /// A nonce or IV has the wrong length.
        case invalidNonce = "crypto.invalid_nonce"
        /// A ciphertext is too short or malformed to be opened.
        case invalidCiphertext = "crypto.invalid_ciphertext"
        /// A GCM tag or ECIES MAC does not match: the data was altered or the key is wrong.
        case authenticationFailed = "crypto.authentication_failed"
        /// A key derivation function failed.
        case keyDerivationFailed = "crypto.key_derivation_failed"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
