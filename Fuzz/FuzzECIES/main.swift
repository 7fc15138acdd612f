import FuzzSupport
import HeraldCrypto

// go-ethereum's ECIES as Status's partitioned and personal topics carry it, with the server's
// key fixed. The first byte picks what the rest is:
//   0  a ciphertext decrypted with the fixed key (the parser and MAC check of every envelope);
//   1  an ephemeral key (32 bytes), an IV (16) and a message encrypted to the fixed key, which
//      must decrypt to the message (the AES-CTR counter over any IV);
//   2  a public key as received (33 or 65 bytes), which must survive both encodings and agree on
//      the ECDH secret;
//   3  a digest (32 bytes) and a recoverable signature (65), as Waku payloads and AMMs carry them.

enum Fixture {
    /// The recipient of four of the ECIES vectors (Tests/HeraldCryptoTests/vectors/crypto.json).
    static let key: Secp256k1PrivateKey = {
        guard let key = try? Secp256k1PrivateKey(rawRepresentation: hexBytes("3ec31ebd7ca305177d37ff70813d9315b2bc0bc5f6847cf4427bd35e102228e1")) else {
            preconditionFailure("the fixed key is valid")
        }
        return key
    }()
}

func decrypt(_ ciphertext: [UInt8]) {
    guard let message = try? ECIES.decrypt(ciphertext, using: Fixture.key) else { return }
    require(message.count == ciphertext.count - ECIES.overheadByteCount, "a decrypted message has the wrong length")
}

func roundTrip(_ input: inout FuzzInput) {
    guard let ephemeral = try? Secp256k1PrivateKey(rawRepresentation: input.take(32)) else { return }
    let iv = input.take(ECIES.ivByteCount)
    guard iv.count == ECIES.ivByteCount else { return }
    let message = input.rest()
    guard let ciphertext = try? ECIES.encrypt(message, to: Fixture.key.publicKey, ephemeralKey: ephemeral, iv: iv) else {
        require(false, "encrypting to a valid key failed")
        return
    }
    let decrypted = try? ECIES.decrypt(ciphertext, using: Fixture.key)
    require(decrypted == message, "an ECIES ciphertext did not decrypt to its message")
}

func publicKey(_ bytes: [UInt8]) {
    guard let key = try? Secp256k1PublicKey(bytes: bytes) else { return }
    let compressed = try? Secp256k1PublicKey(bytes: key.compressedRepresentation)
    let uncompressed = try? Secp256k1PublicKey(bytes: key.uncompressedRepresentation)
    require(compressed == key && uncompressed == key, "a public key changed through its encodings")
    let secret = try? ECDH.sharedSecret(privateKey: Fixture.key, publicKey: key)
    require(secret?.count == 32, "ECDH with a valid point gave no 32-byte secret")
}

func recover(_ input: inout FuzzInput) {
    let digest = input.take(32)
    guard let signature = try? RecoverableSignature(rawRepresentation: input.rest()) else { return }
    guard let signer = try? signature.recoverPublicKey(fromDigest: digest) else { return }
    require(signature.isValid(forDigest: digest, publicKey: signer), "a recovered signer does not verify its signature")
}

runFuzzer { buffer in
    var input = FuzzInput(buffer)
    switch input.byte() % 4 {
    case 0: decrypt(input.rest())
    case 1: roundTrip(&input)
    case 2: publicKey(input.rest())
    default: recover(&input)
    }
}
