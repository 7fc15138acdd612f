import Logging
import HeraldStore
import SwiftProtobuf
import Foundation
import HeraldConfig
import HeraldCore
import HeraldCrypto
@testable import HeraldStatus
import HeraldTesting
import Synchronization
import Testing

/// Bad input is dropped or answered as the protocol says; never a crash, never a stored record.
@Suite struct StatusRobustnessTests {
    @Test func wakuPayloadRejectsMalformedLayouts() throws {
        #expect(throws: StatusError(.invalidPayload, "")) { try WakuPayload(decoding: []) }
        // Signed but no longer than a signature and a flag byte.
        #expect(throws: StatusError(.invalidPayload, "")) { try WakuPayload(decoding: [0x05] + [UInt8](repeating: 1, count: 65)) }
        // Size field says 200 bytes, 3 follow.
        #expect(throws: StatusError(.invalidPayload, "")) { try WakuPayload(decoding: [0x01, 200, 1, 2, 3]) }
        // Size field itself runs past the end.
        #expect(throws: StatusError(.invalidPayload, "")) { try WakuPayload(decoding: [0x03, 1]) }
        // Unsigned and well formed: parses, with no signer.
        let unsigned = try WakuPayload(decoding: [0x01, 2, 7, 8, 0, 0])
        #expect(unsigned.data == [7, 8])
        #expect(unsigned.signer == nil)
    }

    @Test func truncatedAndGarbageEnvelopesAreDropped() async throws {
        try await StatusServerHarness.run { harness in
            let s = StatusScenario(harness)
            let good = try s.client.registration(installationID: StatusScenario.installationID, version: 1, accessToken: StatusScenario.accessToken, deviceToken: "aa")
            var truncated = good
            truncated.payload = Array(good.payload.prefix(good.payload.count - 1))
            await #expect(throws: StatusError(.undecryptable, "")) { try await harness.server.process(truncated) }
            var garbage = good
            garbage.payload = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            await #expect(throws: StatusError(.undecryptable, "")) { try await harness.server.process(garbage) }
            var oversized = good
            oversized.payload = [UInt8](repeating: 0x04, count: (150 << 10) + 1)
            await #expect(throws: StatusError(.invalidMessage, "")) { try await harness.server.process(oversized) }
            var empty = good
            empty.payload = []
            await #expect(throws: StatusError(.undecryptable, "")) { try await harness.server.process(empty) }
            var version0 = good
            version0.version = 0
            await #expect(throws: StatusError(.invalidMessage, "")) { try await harness.server.process(version0) }
            var elsewhere = good
            elsewhere.contentTopic = "/waku/1/0x00000000/rfc26"
            await #expect(throws: StatusError(.unknownTopic, "")) { try await harness.server.process(elsewhere) }
            #expect(try harness.store.view.recordCount() == 0)
            // The untouched message still registers.
            #expect(await harness.server.handle(good).count == 1)
            #expect(try harness.store.view.recordCount() == 1)
        }
    }

    @Test func tamperedRegistrationCiphertextIsMalformed() async throws {
        try await StatusServerHarness.run { harness in
            let s = StatusScenario(harness)
            var registration = Protobuf_PushNotificationRegistration()
            registration.installationID = StatusScenario.installationID
            registration.version = 1
            // Encrypted under a key the server does not share: the client's ECDH with itself.
            let key = try ECDH.sharedSecret(privateKey: s.client.identity, publicKey: s.client.publicKey)
            let blob = try AESGCMFrame.seal(try registration.serializedBytes() as [UInt8], key: key)
            let amm = try ApplicationMessage.encode(type: .pushNotificationRegistration, payload: blob, signedBy: s.client.identity)
            let message = WakuMessage(
                payload: try WakuEnvelope.sealAsymmetric(WakuPayload.encode(amm, signedBy: s.client.identity), to: harness.serverKey.publicKey),
                contentTopic: harness.server.identity.personalTopic.description
            )
            let replies = await harness.server.handle(message)
            let response = try StatusAnswer(try #require(replies.first), openedWith: s.client.identity).registrationResponse()
            #expect(!response.success)
            #expect(response.error == .malformedMessage)
            #expect(response.requestID == Data(SHAKE256.hash(blob)))
        }
    }

    /// status-go cannot store a version ≥ 2⁶³ and answers INTERNAL_ERROR; so does Herald.
    @Test func versionAboveSigned64BitsIsAnInternalError() async throws {
        try await StatusServerHarness.run { harness in
            let s = StatusScenario(harness)
            let response = try await s.register(version: 1 << 63)
            #expect(response.error == .internalError)
            #expect(try harness.store.view.recordCount() == 0)
        }
    }

    @Test func replayedAndOlderVersionsAreVersionMismatch() async throws {
        try await StatusServerHarness.run { harness in
            let s = StatusScenario(harness)
            #expect(try await s.register(version: 5).success)
            #expect(try await s.register(version: 5).error == .versionMismatch)
            #expect(try await s.register(version: 4).error == .versionMismatch)
            #expect(try await s.register(version: 6).success)
            // Unregister keeps the version: an older registration stays refused.
            let unregister = try s.client.unregistration(installationID: StatusScenario.installationID, version: 7)
            let replies = await harness.server.handle(unregister)
            #expect(try StatusAnswer(try #require(replies.first), openedWith: s.client.identity).registrationResponse().success)
            #expect(try await s.register(version: 6).error == .versionMismatch)
            #expect(try await s.register(version: 8).success)
        }
    }

    @Test func garbageQueryAndPushPayloadsAreDropped() async throws {
        try await StatusServerHarness.run { harness in
            let s = StatusScenario(harness)
            #expect(try await s.register().success)
            let garbage: [UInt8] = [0xFF, 0xFF, 0xFF, 0x07]
            // A push request whose payload is not a protobuf.
            let amm = try ApplicationMessage.encode(type: .pushNotificationRequest, payload: garbage, signedBy: s.ephemeral)
            let push = WakuMessage(
                payload: try WakuEnvelope.sealAsymmetric(WakuPayload.encode(amm, signedBy: s.sender.identity), to: harness.serverKey.publicKey),
                contentTopic: harness.server.identity.partitionedTopic.description
            )
            await #expect(throws: StatusError(.ignored, "")) { try await harness.server.process(push) }
            // A query whose payload is not a protobuf, on the client's query topic.
            let topic = ContentTopic.query(hashedKey: s.client.hashedKey)
            let queryAMM = try ApplicationMessage.encode(type: .pushNotificationQuery, payload: garbage, signedBy: s.ephemeral)
            let query = WakuMessage(
                payload: try WakuEnvelope.sealSymmetric(
                    WakuPayload.encode(queryAMM, signedBy: s.sender.identity),
                    key: TopicKey(topicName: topic.name).rawRepresentation
                ),
                contentTopic: topic.description
            )
            await #expect(throws: StatusError(.ignored, "")) { try await harness.server.process(query) }
        }
    }

    /// Registrations and queries past `senderRateLimit` a minute are dropped in silence, per
    /// sender key; another key is counted apart, and push requests (ephemeral keys) are not.
    @Test func aSenderPastItsRateLimitIsDroppedInSilence() async throws {
        var configuration = StatusServer.Configuration()
        configuration.senderRateLimit = 2
        // The limiter's minute passes on a test clock that stands still, however slow this
        // machine is.
        try await StatusServerHarness.run(configuration: configuration, clock: TestClock()) { harness in
            let s = StatusScenario(harness)
            #expect(try await s.register(version: 1).success)
            #expect(try await s.register(version: 2).success)
            let third = try s.client.registration(
                installationID: StatusScenario.installationID,
                version: 3,
                accessToken: StatusScenario.accessToken,
                deviceToken: StatusScenario.deviceToken,
                apnTopic: "im.status.ethereum"
            )
            do {
                _ = try await harness.server.process(third)
                Issue.record("a third registration within the minute was answered")
            } catch {
                #expect((error as? StatusError)?.code == .rateLimited)
            }
            let other = StatusScenario(harness)
            #expect(try await other.register(version: 1).success, "another sender key has its own bucket")
            for index in 0..<4 {
                #expect(try await harness.server.process(s.pushRequestMessage(messageID: [UInt8(index), 1, 2, 3])).count == 1, "push requests are not counted per sender")
            }
        }
    }

    /// A query with fields but no key gets `success: false` (status.md §6.2 step 2).
    @Test func queryWithoutKeysFails() async throws {
        try await StatusServerHarness.run { harness in
            let s = StatusScenario(harness)
            #expect(try await s.register().success)
            let topic = ContentTopic.query(hashedKey: s.client.hashedKey)
            // Field 9, varint 1: an unknown field, so the payload is not empty.
            let amm = try ApplicationMessage.encode(type: .pushNotificationQuery, payload: [0x48, 0x01], signedBy: s.ephemeral)
            let message = WakuMessage(
                payload: try WakuEnvelope.sealSymmetric(
                    WakuPayload.encode(amm, signedBy: s.sender.identity),
                    key: TopicKey(topicName: topic.name).rawRepresentation
                ),
                contentTopic: topic.description
            )
            let replies = try await harness.server.process(message)
            let response = try StatusAnswer(try #require(replies.first), openedWith: s.ephemeral).queryResponse()
            #expect(!response.success)
            #expect(response.info.isEmpty)
        }
    }

    /// When the pushes cannot be handed over, no response is sent (status-go after a failed
    /// gorush POST), and the request is not handled again.
    @Test func failedHandOverSendsNoResponse() async throws {
        try await StatusServerHarness.run { harness in
            let s = StatusScenario(harness)
            #expect(try await s.register().success)
            harness.delivery.fail(true)
            let message = try s.pushRequestMessage(messageID: [1, 2, 3])
            await #expect(throws: StatusError(.deliveryFailed, "")) { try await harness.server.process(message) }
            harness.delivery.fail(false)
            await #expect(throws: StatusError(.duplicate, "")) { try await harness.server.process(message) }
            #expect(harness.delivery.requests.count == 1)
        }
    }

    /// Dedup markers expire after the configured window (status-go keeps them forever).
    @Test func deduplicationWindowExpires() async throws {
        let clock = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var configuration = StatusServer.Configuration()
        configuration.deduplicationWindow = .seconds(60)
        try await StatusServerHarness.run(configuration: configuration, now: { clock.withLock { $0 } }) { harness in
            let s = StatusScenario(harness)
            #expect(try await s.register().success)
            let message = try s.pushRequestMessage(messageID: [9])
            #expect(try await harness.server.process(message).count == 1)
            clock.withLock { $0 += 59 }
            await #expect(throws: StatusError(.duplicate, "")) { try await harness.server.process(message) }
            clock.withLock { $0 += 2 }
            #expect(try await harness.server.process(message).count == 1)
            #expect(harness.delivery.requests.count == 2)
        }
    }

    /// A restarted server rejoins the query topics of stored registrations.
    @Test func queryTopicsAreRejoinedFromTheStore() async throws {
        try await StatusServerHarness.run { harness in
            let s = StatusScenario(harness)
            #expect(try await s.register().success)
            let restarted = StatusServer(
                identity: harness.server.identity,
                registry: .init(log: harness.store.log, view: harness.store.view),
                markers: harness.store.markers,
                delivery: harness.delivery,
                logger: .init(label: "restarted")
            )
            #expect(restarted.queryTopics.count == 0)
            try restarted.joinStoredQueryTopics()
            #expect(restarted.queryTopics.count == 1)
            let replies = try await restarted.process(try s.sender.query(for: s.client.hashedKey, ephemeral: s.ephemeral))
            let response = try StatusAnswer(try #require(replies.first), openedWith: s.ephemeral).queryResponse()
            #expect(response.success)
            #expect(response.info.map(\.installationID) == [StatusScenario.installationID])
        }
    }

    @Test func goUUIDAcceptsWhatGoAccepts() {
        #expect(GoUUID.isValid("c6ae4fde-bb65-11ea-b3de-0242ac130004"))
        #expect(GoUUID.isValid("C6AE4FDE-BB65-11EA-B3DE-0242AC130004"))
        #expect(GoUUID.isValid("c6ae4fdebb6511eab3de0242ac130004"))
        #expect(GoUUID.isValid("urn:uuid:c6ae4fde-bb65-11ea-b3de-0242ac130004"))
        #expect(GoUUID.isValid("xc6ae4fde-bb65-11ea-b3de-0242ac130004y"))
        #expect(!GoUUID.isValid(""))
        #expect(!GoUUID.isValid("abc"))
        #expect(!GoUUID.isValid("c6ae4fde-bb65-11ea-b3de-0242ac13000g"))
        #expect(!GoUUID.isValid("c6ae4fde_bb65-11ea-b3de-0242ac130004"))
    }
}

/// `herald keygen`'s file: read back, mode 0600, never overwritten.
@Suite struct StatusIdentityFileTests {
    @Test func writesReadsAndRefusesToOverwrite() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/status.key"
            let key = Secp256k1PrivateKey()
            try StatusIdentity.write(key, toFile: path)
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            #expect(try StatusIdentity(contentsOfFile: path).publicKey == key.publicKey)
            #expect(throws: StatusError(.identityKey, "")) { try StatusIdentity.write(Secp256k1PrivateKey(), toFile: path) }
            #expect(try StatusIdentity(contentsOfFile: path).publicKey == key.publicKey)
            try "not a key\n".write(toFile: directory + "/bad.key", atomically: true, encoding: .utf8)
            let refusal = #expect(throws: ConfigurationError.self) { try StatusIdentity(contentsOfFile: directory + "/bad.key") }
            #expect(refusal?.message.contains("status.identity-key-file") == true)
            let directoryRefusal = #expect(throws: ConfigurationError.self) { try StatusIdentity(contentsOfFile: directory) }
            #expect(directoryRefusal?.message.contains("is a directory") == true)
        }
    }
}
