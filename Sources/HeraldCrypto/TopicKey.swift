public import HeraldCore
import Crypto
import _CryptoExtras

/// The symmetric key of a Status public or query topic: PBKDF2-HMAC-SHA-256 over the UTF-8 topic name with an empty
/// salt, 65356 iterations (sic — not 65536) and 32 bytes of output (status-go `wakuv2` `AddSymKeyFromPassword`).
public struct TopicKey: Sendable, Hashable, KeyMaterial {
    public static let iterations = 65356
    public static let byteCount = 32

    /// The 32-byte AES-256 key.
    public let rawRepresentation: [UInt8]

    /// The key for `topicName` (for a query topic, the 128-hex-digit SHAKE256_64 of the client's compressed key).
    public init(topicName: String) throws {
        do {
            // The iteration count is below swift-crypto's 210,000 floor for new password hashes, but it is the
            // protocol's, so the unchecked entry point is the right one.
            let key = try KDF.Insecure.PBKDF2.deriveKey(
                from: Array(topicName.utf8),
                salt: [UInt8](),
                using: .sha256,
                outputByteCount: Self.byteCount,
                unsafeUncheckedRounds: Self.iterations
            )
            self.rawRepresentation = key.withUnsafeBytes { Array($0) }
        } catch {
            throw CryptoError(.keyDerivationFailed, "PBKDF2 failed: \(error)")
        }
    }
}
