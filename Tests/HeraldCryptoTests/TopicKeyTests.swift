import HeraldCrypto
import Testing

@Suite struct TopicKeyTests {
    @Test func statusQueryTopicVector() throws {
        // status.md §12: the query topic of client key 1 is the hex of SHAKE256_64(its compressed key).
        let name = hexString(SHAKE256.hash(hex("0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")))
        #expect(
            hexString(try TopicKey(topicName: name).rawRepresentation)
                == "c97e4b363d05f6d8fec0d7ea3e4c51cc229e98f32a6cbcb50ecd74eb06c02771"
        )
    }

    @Test func everyPythonVectorMatches() throws {
        for vector in CryptoVectors.shared.pbkdf2 {
            #expect(
                hexString(try TopicKey(topicName: vector.topicName).rawRepresentation) == vector.key,
                "\(vector.topicName)")
        }
    }

    @Test func parametersAreStatusOnes() {
        #expect(TopicKey.iterations == 65356)
        #expect(TopicKey.byteCount == 32)
    }
}
