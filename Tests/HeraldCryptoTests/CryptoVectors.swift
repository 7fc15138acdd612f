import Foundation

/// `vectors/crypto.json`, written by `vectors/generate_crypto_vectors.py` from libraries independent of Herald
/// (coincurve/libsecp256k1, pycryptodome, eth-hash, hashlib) and read from beside this file, so no resources.
struct CryptoVectors: Decodable {
    struct HashInput: Decodable {
        let name: String
        let input: String?
        let `repeat`: String?
        let count: Int?
        let outputLength: Int?
        let digest: String?
        let output: String?

        var bytes: [UInt8] {
            if let input { return hex(input) }
            return [UInt8](repeating: hex(self.repeat!)[0], count: self.count!)
        }
    }

    struct Key: Decodable {
        let name: String
        let `private`: String
        let compressed: String
        let uncompressed: String
    }

    struct Signature: Decodable {
        let name: String
        let `private`: String
        let digest: String
        let signature: String
        let highS: String
        let uncompressed: String
    }

    struct SharedSecret: Decodable {
        let name: String
        let `private`: String
        let `public`: String
        let otherPrivate: String
        let shared: String
    }

    struct GCM: Decodable {
        let name: String
        let key: String
        let nonce: String
        let plaintext: String
        let frame: String
    }

    struct PBKDF2: Decodable {
        let topicName: String
        let key: String
    }

    struct ECIES: Decodable {
        let name: String
        let recipientPrivate: String
        let recipientPublic: String
        let ephemeralPrivate: String
        let iv: String
        let message: String
        let ciphertext: String
    }

    let keccak256: [HashInput]
    let shake256: [HashInput]
    let keys: [Key]
    let signatures: [Signature]
    let ecdh: [SharedSecret]
    let aesGCM: [GCM]
    let pbkdf2: [PBKDF2]
    let ecies: [ECIES]

    static let shared: CryptoVectors = {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()
            .appendingPathComponent("vectors/crypto.json")
        do {
            return try JSONDecoder().decode(CryptoVectors.self, from: Data(contentsOf: url))
        } catch {
            fatalError("cannot read \(url.path): \(error)")
        }
    }()
}
