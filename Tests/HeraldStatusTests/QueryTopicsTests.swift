import HeraldCore
import HeraldCrypto
import HeraldStatus
import Testing

/// Query topics are 4 bytes of hash: keys that share one must all be tried.
@Suite struct QueryTopicsTests {
    // Found by a birthday search (SHAKE-256 of decimal strings, Python's eth-hash Keccak): both
    // keys' query topics are /waku/1/0xdaa5ebe3/rfc26.
    static let first = Hex.decode(
        "72a1d69f2b0546c8f916c934148c8daae1872bf45e942358794cde853256f872c4d80f513d1de182437d890892cc8db459aed0bfb6f5e5e8efd8ef1a0ed131e3"
    )!
    static let second = Hex.decode(
        "7bf8425c1fa76808343ac35264ff2c869553ad318a225d0d5a426dc54d269105da074c5c2356fd5fc944dea4063f4785332a6ebb72f638cce08c940c30d7bb61"
    )!

    @Test func collidingKeysAreBothKept() throws {
        let topic = ContentTopic.query(hashedKey: Self.first)
        #expect(topic.description == "/waku/1/0xdaa5ebe3/rfc26")
        #expect(ContentTopic.query(hashedKey: Self.second).description == topic.description)
        let topics = QueryTopics()
        topics.join(hashedKey: Self.first)
        topics.join(hashedKey: Self.second)
        topics.join(hashedKey: Self.first)
        #expect(topics.count == 2)
        #expect(topics.contains(topic.description))
        let keys = try topics.symmetricKeys(for: topic.description)
        #expect(keys.count == 2)
        #expect(Set(keys) == [try TopicKey(topicName: Hex.encode(Self.first)).rawRepresentation, try TopicKey(topicName: Hex.encode(Self.second)).rawRepresentation])
    }

    @Test func otherTopicFormsAreNotQueryTopics() {
        let topics = QueryTopics()
        topics.join(hashedKey: Self.first)
        #expect(!topics.contains("/waku/1/0xDAA5EBE3/rfc26x"))
        #expect(!topics.contains("/waku/1/0xdaa5ebe/rfc26"))
        #expect(!topics.contains(""))
        #expect(ContentTopic.value(of: "/waku/1/0xdaa5ebe3/rfc26") == 0xdaa5_ebe3)
        #expect(ContentTopic.value(of: "/waku/2/0xdaa5ebe3/rfc26") == nil)
        // Keys that are not 64 bytes have no query topic a client would use.
        topics.join(hashedKey: [1, 2, 3])
        #expect(topics.count == 1)
    }
}
