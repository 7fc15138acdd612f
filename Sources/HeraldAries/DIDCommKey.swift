public import HeraldCore
import CSodium

/// An Ed25519 key pair as Aries agents use it: the verkey names it (base58), and its X25519
/// conversion seals and opens envelopes (RFC 0019).
public struct DIDCommKey: Sendable, KeyMaterial {
    /// The Ed25519 public key.
    public let verkey: [UInt8]
    let curvePublic: [UInt8]
    let curveSecret: [UInt8]

    public init(seed: [UInt8]) throws(DIDCommError) {
        guard seed.count == Int(crypto_sign_SEEDBYTES) else { throw .key("an Ed25519 seed is 32 bytes, not \(seed.count)") }
        Sodium.ready()
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_sign_PUBLICKEYBYTES))
        var secretKey = [UInt8](repeating: 0, count: Int(crypto_sign_SECRETKEYBYTES))
        guard crypto_sign_seed_keypair(&publicKey, &secretKey, seed) == 0 else { throw .key("libsodium refused the seed") }
        var curvePublic = [UInt8](repeating: 0, count: Int(crypto_box_PUBLICKEYBYTES))
        var curveSecret = [UInt8](repeating: 0, count: Int(crypto_box_SECRETKEYBYTES))
        guard crypto_sign_ed25519_pk_to_curve25519(&curvePublic, publicKey) == 0,
            crypto_sign_ed25519_sk_to_curve25519(&curveSecret, secretKey) == 0
        else { throw .key("the key has no X25519 form") }
        self.verkey = publicKey
        self.curvePublic = curvePublic
        self.curveSecret = curveSecret
    }

    /// The verkey in base58, as `kid` and DID documents name it.
    public var verkeyBase58: String { Base58.encode(self.verkey) }

    /// The X25519 form of another agent's verkey.
    static func curvePublic(ofVerkey verkey: [UInt8]) throws(DIDCommError) -> [UInt8] {
        guard verkey.count == Int(crypto_sign_PUBLICKEYBYTES) else { throw .key("a verkey is 32 bytes, not \(verkey.count)") }
        Sodium.ready()
        var curve = [UInt8](repeating: 0, count: Int(crypto_box_PUBLICKEYBYTES))
        guard crypto_sign_ed25519_pk_to_curve25519(&curve, verkey) == 0 else { throw .key("the verkey is not an Ed25519 point") }
        return curve
    }
}

/// libsodium's one-time initialisation.
enum Sodium {
    /// `sodium_init` is safe to call from any thread any number of times.
    static func ready() {
        _ = sodium_init()
    }

    static func random(_ count: Int) -> [UInt8] {
        Self.ready()
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }
}

/// Why an envelope cannot be opened or made.
public enum DIDCommError: Error, Equatable, CustomStringConvertible {
    case malformed(String)
    case notForThisKey
    case decryption(String)
    case key(String)

    public var description: String {
        switch self {
        case .malformed(let detail): "not a DIDComm v1 envelope: \(detail)"
        case .notForThisKey: "the envelope has no recipient with this agent's verkey"
        case .decryption(let detail): "the envelope does not open: \(detail)"
        case .key(let detail): detail
        }
    }
}
