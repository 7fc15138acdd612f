import HeraldCore
import HeraldCrypto
import HeraldTesting
@testable import HeraldStatus
import Testing

/// Herald's Waku and Status layers against the independent Python implementation, both ways.
@Suite struct WakuVectorTests {
    let vectors = StatusVectors.shared

    @Test func topicsMatch() throws {
        for topic in self.vectors.topics {
            let key = try Secp256k1PublicKey(bytes: hex(self.vectors.keys[topic.key]!.uncompressed))
            #expect(ContentTopic.partitioned(key).name == topic.partitionedName)
            #expect(ContentTopic.partitioned(key).description == topic.partitioned)
            #expect(ContentTopic.personal(key).name == topic.personalName)
            #expect(ContentTopic.personal(key).description == topic.personal)
            let hashed = StatusIdentity.hashedKey(key)
            #expect(Hex.encode(hashed) == self.vectors.keys[topic.key]!.hashed)
            #expect(ContentTopic.query(hashedKey: hashed).description == topic.query)
            #expect(ContentTopic.query(hashedKey: hashed).name == topic.queryName)
        }
        // status.md §12.
        let client = self.vectors.topics.first { $0.key == "client" }!
        #expect(client.query == "/waku/1/0xb58ebe56/rfc26")
        #expect(try Hex.encode(TopicKey(topicName: client.queryName).rawRepresentation) == client.querySymmetricKey)
    }

    @Test func wakuPayloadsEncodeByteForByte() throws {
        #expect(self.vectors.wakuPayloads.count >= 8)
        for vector in self.vectors.wakuPayloads {
            let key = try Secp256k1PrivateKey(rawRepresentation: hex(vector.signer))
            let encoded = try WakuPayload.encode(hex(vector.data), signedBy: key, padding: hex(vector.padding))
            #expect(Hex.encode(encoded) == vector.encoded, "\(vector.name)")
            #expect(WakuPayload.paddingLength(forSignedData: hex(vector.data).count) == hex(vector.padding).count, "\(vector.name)")
        }
    }

    @Test func wakuPayloadsDecode() throws {
        for vector in self.vectors.wakuPayloads {
            let decoded = try WakuPayload(decoding: hex(vector.encoded))
            #expect(decoded.data == hex(vector.data), "\(vector.name)")
            #expect(decoded.signer == (try Secp256k1PrivateKey(rawRepresentation: hex(vector.signer))).publicKey, "\(vector.name)")
        }
    }

    @Test func symmetricEnvelopesBothWays() throws {
        for vector in self.vectors.symmetricEnvelopes {
            let sealed = try WakuEnvelope.sealSymmetric(hex(vector.plaintext), key: hex(vector.key), nonce: hex(vector.nonce))
            #expect(Hex.encode(sealed) == vector.sealed, "\(vector.name)")
            #expect(try WakuEnvelope.openSymmetric(hex(vector.sealed), key: hex(vector.key)) == hex(vector.plaintext))
        }
    }

    @Test func asymmetricEnvelopesBothWays() throws {
        for vector in self.vectors.asymmetricEnvelopes {
            let recipient = try Secp256k1PublicKey(bytes: hex(vector.recipientPublic))
            let sealed = try ECIES.encrypt(
                hex(vector.plaintext),
                to: recipient,
                ephemeralKey: Secp256k1PrivateKey(rawRepresentation: hex(vector.ephemeralPrivate)),
                iv: hex(vector.iv)
            )
            #expect(Hex.encode(sealed) == vector.sealed, "\(vector.name)")
            let key = try Secp256k1PrivateKey(rawRepresentation: hex(vector.recipientPrivate))
            #expect(try WakuEnvelope.openAsymmetric(hex(vector.sealed), using: key) == hex(vector.plaintext))
        }
    }

    @Test func applicationMessagesBothWays() throws {
        for vector in self.vectors.applicationMessages {
            let key = try Secp256k1PrivateKey(rawRepresentation: hex(vector.signer))
            let encoded = try ApplicationMessage.encode(
                type: .init(rawValue: vector.type)!,
                payload: hex(vector.payload),
                signedBy: key
            )
            #expect(Hex.encode(encoded) == vector.encoded, "\(vector.name)")
            let decoded = try ApplicationMessage(decoding: hex(vector.encoded), transportSigner: nil)
            #expect(decoded.type == vector.type)
            #expect(decoded.payload == hex(vector.payload))
            #expect(decoded.signer == key.publicKey)
            #expect(Hex.encode(decoded.id) == vector.messageID, "\(vector.name)")
        }
    }

    @Test func grantsMatch() throws {
        for vector in self.vectors.grants {
            let client = try Secp256k1PrivateKey(rawRepresentation: hex(vector.client))
            let server = try Secp256k1PublicKey(bytes: hex(vector.serverCompressed))
            let grant = try StatusClient(identity: client, server: server).grant(accessToken: vector.accessToken)
            #expect(Hex.encode(grant) == vector.grant, "\(vector.name)")
        }
    }

    /// The server's answers, with the random parts injected, equal Python's byte for byte.
    @Test func repliesEncodeByteForByte() throws {
        #expect(self.vectors.responses.count == 3)
        for vector in self.vectors.responses {
            let reply = try StatusReply.message(
                type: .init(rawValue: vector.type)!,
                payload: hex(vector.payload),
                from: Secp256k1PrivateKey(rawRepresentation: hex(vector.serverPrivate)),
                to: Secp256k1PublicKey(bytes: hex(vector.recipientPublic)),
                padding: hex(vector.wakuPadding),
                ephemeralKey: Secp256k1PrivateKey(rawRepresentation: hex(vector.eciesEphemeralPrivate)),
                iv: hex(vector.iv),
                timestamp: 0
            )
            #expect(Hex.encode(reply.payload) == vector.sealed, "\(vector.name)")
            #expect(reply.contentTopic == vector.contentTopic)
        }
    }
}
