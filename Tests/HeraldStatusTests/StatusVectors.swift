import Foundation
import HeraldCore
import HeraldStatus

/// `vectors/status.json`, written by `vectors/generate_status_vectors.py` with an implementation
/// independent of Herald (coincurve/libsecp256k1, pycryptodome, eth-hash, Google protobuf) and
/// read from beside this file, so no resources.
struct StatusVectors: Decodable {
    struct Key: Decodable {
        let `private`: String
        let compressed: String
        let uncompressed: String
        let hashed: String
    }

    struct Topic: Decodable {
        let key: String
        let partitionedName: String
        let partitioned: String
        let personalName: String
        let personal: String
        let queryName: String
        let query: String
        let querySymmetricKey: String
    }

    struct Payload: Decodable {
        let name: String
        let data: String
        let padding: String
        let signer: String
        let encoded: String
    }

    struct Symmetric: Decodable {
        let name: String
        let key: String
        let nonce: String
        let plaintext: String
        let sealed: String
    }

    struct Asymmetric: Decodable {
        let name: String
        let recipientPublic: String
        let recipientPrivate: String
        let ephemeralPrivate: String
        let iv: String
        let plaintext: String
        let sealed: String
    }

    struct Application: Decodable {
        let name: String
        let signer: String
        let type: Int
        let payload: String
        let encoded: String
        let messageID: String
    }

    struct Grant: Decodable {
        let name: String
        let client: String
        let serverCompressed: String
        let accessToken: String
        let digest: String
        let grant: String
    }

    struct Info: Decodable {
        let installationID: String
        let publicKey: String
        let accessToken: String
        let allowedKeyList: [String]
        let grant: String
        let version: UInt64
    }

    struct Report: Decodable {
        let success: Bool
        let error: Int
        let publicKey: String
        let installationID: String
    }

    struct Delivery: Decodable {
        let platform: String
        let token: String
        let topic: String
        let message: String
        let data: [String: String]
    }

    struct Expectation: Decodable {
        let kind: String
        let recipient: String?
        let recipientPublic: String?
        let contentTopic: String?
        let success: Bool?
        let error: Int?
        let requestID: String?
        let messageID: String?
        let infos: [Info]?
        let reports: [Report]?
        let deliveries: [Delivery]?
        let gorushBody: String?
    }

    struct Case: Decodable {
        let name: String
        let message: WakuMessage
        let expect: Expectation
    }

    struct Flow: Decodable {
        let steps: [Case]
    }

    struct Response: Decodable {
        let name: String
        let serverPrivate: String
        let recipientPublic: String
        let type: Int
        let payload: String
        let amm: String
        let wakuPadding: String
        let wakuPlain: String
        let eciesEphemeralPrivate: String
        let iv: String
        let sealed: String
        let contentTopic: String
    }

    let keys: [String: Key]
    let topics: [Topic]
    let wakuPayloads: [Payload]
    let symmetricEnvelopes: [Symmetric]
    let asymmetricEnvelopes: [Asymmetric]
    let applicationMessages: [Application]
    let grants: [Grant]
    let registrationCases: [Case]
    let flow: Flow
    let responses: [Response]

    static let shared: StatusVectors = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("vectors/status.json")
        do {
            return try JSONDecoder().decode(StatusVectors.self, from: Data(contentsOf: url))
        } catch {
            fatalError("cannot read \(url.path): \(error)")
        }
    }()
}

func hex(_ text: String) -> [UInt8] {
    guard let bytes = Hex.decode(text) else { fatalError("not hex: \(text)") }
    return bytes
}
