import Foundation
import HeraldAries
import HeraldCore
import HeraldServer
import HeraldTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The Aries device-info protocols through the mediator API of a node whose APNs and FCM are the
/// strict mocks: every row of aries.md §7's checklist, and the whole flow.
@Suite struct AriesEndToEndTests {
    typealias Harness = PushNodeHarness

    static let ariesYAML = """
        aries:
          apns-app: toot
          fcm-app: droid

        """
    static let apnsType = "https://didcomm.org/push-notifications-apns/1.0"
    static let fcmType = "https://didcomm.org/push-notifications-fcm/1.0"

    static func with(extraYAML: String = "", _ body: @escaping @Sendable (Harness) async throws -> Void) async throws {
        try await Harness.with(frontDoorYAML: Self.ariesYAML, extraYAML: extraYAML, body)
    }

    /// Sends `message` on `connection`; returns the status and the answer's JSON.
    static func send(_ h: Harness, _ message: String, connection: String = "conn-1") async throws -> (HTTPResponse.Status, [String: Any]) {
        let response = try await h.client.execute(
            uri: "/aries/v1/connections/\(connection)/messages",
            method: .post,
            headers: [.contentType: "application/json", .authorization: "Bearer \(Harness.apiToken)"],
            body: ByteBuffer(string: message)
        )
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]) ?? [:]
        return (response.status, json)
    }

    static func notify(_ h: Harness, _ body: String) async throws -> [String: Any] {
        let response = try await h.client.execute(
            uri: "/aries/v1/notify",
            method: .post,
            headers: [.contentType: "application/json", .authorization: "Bearer \(Harness.apiToken)"],
            body: ByteBuffer(string: body)
        )
        #expect(response.status == .ok)
        return (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]) ?? [:]
    }

    static func set(_ type: String, id: String, token: String?, platform: String?? = .none) -> String {
        var fields = [#""@type":"\#(type)/set-device-info""#, #""@id":"\#(id)""#, #""device_token":\#(token.map { "\"\($0)\"" } ?? "null")"#]
        if case .some(let value) = platform { fields.append(#""device_platform":\#(value.map { "\"\($0)\"" } ?? "null")"#) }
        return "{\(fields.joined(separator: ","))}"
    }

    static func get(_ type: String, id: String) -> String {
        #"{"@type":"\#(type)/get-device-info","@id":"\#(id)"}"#
    }

    static func thread(_ json: [String: Any]) -> String? {
        (json["~thread"] as? [String: Any])?["thid"] as? String
    }

    static func code(_ json: [String: Any]) -> String? {
        (json["description"] as? [String: Any])?["code"] as? String
    }

    // MARK: §7.1–3: keyed by connection, answered with ack, device-info or problem-report

    @Test func setIsAckedGetAnswersDeviceInfoAndAllNullRemoves() async throws {
        try await Self.with { h in
            let token = Harness.apnsToken(600)
            let (status, ack) = try await Self.send(h, Self.set(Self.apnsType, id: "set-1", token: token))
            #expect(status == .ok)
            #expect(ack["@type"] as? String == "\(Self.apnsType)/ack", "the adopted spelling")
            #expect(ack["status"] as? String == "OK")
            #expect(Self.thread(ack) == "set-1")
            #expect((ack["@id"] as? String)?.isEmpty == false)

            let (_, info) = try await Self.send(h, Self.get(Self.apnsType, id: "get-1"))
            #expect(info["@type"] as? String == "\(Self.apnsType)/device-info")
            #expect(info["device_token"] as? String == token)
            #expect(Self.thread(info) == "get-1")
            #expect(info["device_platform"] == nil, "APNs device info has no platform")

            // Replaced on every set, per connection.
            let newer = Harness.apnsToken(601)
            _ = try await Self.send(h, Self.set(Self.apnsType, id: "set-2", token: newer))
            let answer1 = try await Self.send(h, Self.get(Self.apnsType, id: "get-2"))
            #expect(answer1.1["device_token"] as? String == newer)
            let (_, other) = try await Self.send(h, Self.get(Self.apnsType, id: "get-3"), connection: "conn-2")
            #expect(Self.code(other) == "not-registered-for-push-notifications", "another connection has none")

            // An APNs device_token of null is "all values null": removed, and acked.
            let (_, removed) = try await Self.send(h, Self.set(Self.apnsType, id: "set-3", token: nil))
            #expect(removed["status"] as? String == "OK")
            let (_, none) = try await Self.send(h, Self.get(Self.apnsType, id: "get-4"))
            #expect(none["@type"] as? String == "\(Self.apnsType)/problem-report")
            #expect(Self.code(none) == "not-registered-for-push-notifications")
            #expect(Self.thread(none) == "get-4")
        }
    }

    @Test func fcmDeviceInfoCarriesThePlatformAndExactlyOneNullIsMissingValue() async throws {
        try await Self.with { h in
            let token = Harness.fcmToken(600)
            let (_, ack) = try await Self.send(h, Self.set(Self.fcmType, id: "f-1", token: token, platform: "Android"))
            #expect(ack["@type"] as? String == "\(Self.fcmType)/ack")
            let (_, info) = try await Self.send(h, Self.get(Self.fcmType, id: "f-2"))
            #expect(info["device_token"] as? String == token)
            #expect(info["device_platform"] as? String == "Android")
            for (id, token, platform) in [("f-3", token, String??.some(nil)), ("f-4", nil, String??.some("iOS"))] {
                let (status, problem) = try await Self.send(h, Self.set(Self.fcmType, id: id, token: token, platform: platform))
                #expect(status == .ok)
                #expect(problem["@type"] as? String == "\(Self.fcmType)/problem-report")
                #expect(Self.code(problem) == "missing-value", "\(id)")
                #expect(Self.thread(problem) == id)
            }
            // The refused ones changed nothing.
            let answer2 = try await Self.send(h, Self.get(Self.fcmType, id: "f-5"))
            #expect(answer2.1["device_token"] as? String == token)
            let (_, removed) = try await Self.send(h, Self.set(Self.fcmType, id: "f-6", token: nil, platform: String??.some(nil)))
            #expect(removed["status"] as? String == "OK")
            let answer3 = try await Self.send(h, Self.get(Self.fcmType, id: "f-7"))
            #expect(Self.code(answer3.1) == "not-registered-for-push-notifications")
        }
    }

    @Test func afj02FCMMessageWithoutPlatformIsTaken() async throws {
        try await Self.with { h in
            let token = Harness.fcmToken(601)
            let (_, ack) = try await Self.send(h, Self.set(Self.fcmType, id: "afj-1", token: token))
            #expect(ack["status"] as? String == "OK")
            let (_, info) = try await Self.send(h, Self.get(Self.fcmType, id: "afj-2"))
            #expect(info["device_token"] as? String == token)
            #expect(info["device_platform"] is NSNull, "unknown, answered as null")
        }
    }

    // MARK: §7.4: tolerant type matching

    @Test(arguments: [
        "https://didcomm.org/push-notifications-apns/1.0", "https://didcomm.org/push-notifications-apns/1.3",
        "did:sov:BzCbsNYhMrjHiqZDTUASHg;spec/push-notifications-apns/1.0",
    ])
    func anyMinorVersionAndTheLegacyPrefixAreTaken(type: String) async throws {
        try await Self.with { h in
            let (_, ack) = try await Self.send(h, Self.set(type, id: "v-1", token: Harness.apnsToken(610)))
            #expect(ack["status"] as? String == "OK")
            #expect(ack["@type"] as? String == "\(Self.apnsType)/ack", "answered in the modern form")
        }
    }

    @Test(arguments: ["https://didcomm.org/push-notifications-apns/2.0", "https://example.org/push-notifications-apns/1.0", "https://didcomm.org/push-notifications-web/1.0"])
    func otherMajorVersionsDocumentsAndProtocolsAreRefused(type: String) async throws {
        try await Self.with { h in
            let (status, json) = try await Self.send(h, Self.set(type, id: "v-2", token: Harness.apnsToken(611)))
            #expect(status == .badRequest)
            #expect((json["error"] as? String)?.contains("not a message of") == true)
        }
    }

    @Test(arguments: ["https://didcomm.org/notification/1.0/ack", "https://didcomm.org/push-notifications-fcm/1.0/ack"])
    func acksOfEitherSpellingAreTakenAndNotAnswered(type: String) async throws {
        try await Self.with { h in
            let (status, _) = try await Self.send(h, #"{"@type":"\#(type)","@id":"a-1","status":"OK","~thread":{"thid":"x"}}"#)
            #expect(status == .noContent)
        }
    }

    @Test func malformedMessagesAre400() async throws {
        try await Self.with { h in
            for body in ["not json", "[]", #"{"@id":"x"}"#, #"{"@type":"\#(Self.apnsType)/set-device-info"}"#] {
                let answer4 = try await Self.send(h, body)
                #expect(answer4.0 == .badRequest, "\(body)")
            }
            let (_, problem) = try await Self.send(h, Self.set(Self.apnsType, id: "bad", token: "not-a-token"))
            #expect(Self.code(problem) == "invalid-value")
            let unauthenticated = try await h.client.execute(uri: "/aries/v1/notify", method: .post, body: ByteBuffer(string: "{}"))
            #expect(unauthenticated.status == .unauthorized, "the mediator API needs the API token")
        }
    }

    @Test func discoverFeaturesDisclosesBothProtocols() async throws {
        try await Self.with { h in
            let (_, disclose) = try await Self.send(h, #"{"@type":"https://didcomm.org/discover-features/1.0/query","@id":"q-1","query":"https://didcomm.org/push-notifications-*"}"#)
            #expect(disclose["@type"] as? String == "https://didcomm.org/discover-features/1.0/disclose")
            #expect(Self.thread(disclose) == "q-1")
            let protocols = (disclose["protocols"] as? [[String: Any]]) ?? []
            #expect(Set(protocols.compactMap { $0["pid"] as? String }) == [Self.apnsType, Self.fcmType])
            #expect(protocols.allSatisfy { ($0["roles"] as? [String]) == ["notification-sender"] })
            let (_, none) = try await Self.send(h, #"{"@type":"https://didcomm.org/discover-features/1.0/query","@id":"q-2","query":"https://didcomm.org/basicmessage/*"}"#)
            #expect((none["protocols"] as? [Any])?.isEmpty == true)
        }
    }

    // MARK: §7.5: the push, deduplicated, and dead tokens

    @Test func fullFlowSetGetNotifyPushDeadTokenNotRegistered() async throws {
        try await Self.with { h in
            let apnsToken = Harness.apnsToken(620)
            let fcmToken = Harness.fcmToken(620)
            _ = try await Self.send(h, Self.set(Self.apnsType, id: "s-1", token: apnsToken), connection: "wallet-ios")
            _ = try await Self.send(h, Self.set(Self.fcmType, id: "s-2", token: fcmToken, platform: "Android"), connection: "wallet-android")
            let answer5 = try await Self.send(h, Self.get(Self.apnsType, id: "g-1"), connection: "wallet-ios")
            #expect(answer5.1["device_token"] as? String == apnsToken)

            let ios = try await Self.notify(h, #"{"connection_id":"wallet-ios","message_id":"m-1","message_tag":"t-1"}"#)
            #expect(ios["result"] as? String == "delivered")
            let push = try #require(h.production.accepted.first)
            #expect(push.token == apnsToken)
            #expect(push.pushType == "alert")
            #expect(push.priority == "10")
            let payload = Harness.json(push.payload)
            #expect(payload["@type"] as? String == "https://didcomm.org/push-notifications-apns")
            #expect(payload["message_tag"] as? String == "t-1")
            #expect(payload["message_id"] as? String == "m-1")
            #expect((payload["aps"] as? [String: Any])?["alert"] as? String == "New message")

            let android = try await Self.notify(h, #"{"connection_id":"wallet-android","message_ids":["m-2","m-3"],"message_tags":["t-2"]}"#)
            #expect(android["result"] as? String == "delivered")
            let message = try #require(h.fcm.accepted.first)
            #expect(message.target == .token(fcmToken))
            #expect(message.data["@type"] == "https://didcomm.org/push-notifications-fcm")
            #expect(message.data["message_ids"] == #"["m-2","m-3"]"#)
            #expect(message.data["message_tags"] == #"["t-2"]"#)
            #expect(message.androidPriority == "HIGH")

            // The same message id again pushes nothing.
            let repeated = try await Self.notify(h, #"{"connection_id":"wallet-ios","message_id":"m-1","message_tag":"t-1"}"#)
            #expect(repeated["result"] as? String == "duplicate")
            #expect(h.production.accepted.count == 1)

            // The device is gone: its device info goes with it.
            h.production.script(token: apnsToken, .unregistered(since: Date()))
            let dead = try await Self.notify(h, #"{"connection_id":"wallet-ios","message_id":"m-4"}"#)
            #expect(dead["result"] as? String == "not_delivered")
            let (_, after) = try await Self.send(h, Self.get(Self.apnsType, id: "g-2"), connection: "wallet-ios")
            #expect(Self.code(after) == "not-registered-for-push-notifications")
            let answer6 = try await Self.notify(h, #"{"connection_id":"wallet-ios","message_id":"m-5"}"#)
            #expect(answer6["result"] as? String == "not_registered")
        }
    }

    @Test func backgroundStyleSendsSilentPushes() async throws {
        try await Self.with(extraYAML: "  style: background\n") { h in
            _ = try await Self.send(h, Self.set(Self.apnsType, id: "s-1", token: Harness.apnsToken(630)), connection: "quiet")
            let answer7 = try await Self.notify(h, #"{"connection_id":"quiet","message_id":"m-1"}"#)
            #expect(answer7["result"] as? String == "delivered")
            let push = try #require(h.production.accepted.first)
            #expect(push.pushType == "background")
            #expect(push.priority == "5")
            #expect((Harness.json(push.payload)["aps"] as? [String: Int]) == ["content-available": 1])
        }
    }
}

/// The whole flow through DIDComm v1 envelopes a wallet packs itself for Herald's own verkey,
/// with the answers packed back for the wallet: PyNaCl (sharing no code with Herald), and ACA-Py
/// 1.7.0's own two packers, which open only the 12-byte-iv form real wallets use.
@Suite struct AriesEnvelopeTests {
    typealias Harness = PushNodeHarness

    enum Wallet: String, CaseIterable, Sendable {
        /// HeraldAriesTests/vectors/didcomm_v1.py.
        case pyNaCl
        /// ACA-Py's `askar/didcomm/v1.py`, what an Askar wallet runs.
        case acapyAskar
        /// ACA-Py's `wallet/crypto.py`.
        case acapyNaCl

        static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

        /// The command line before `pack|unpack INPUT OUTPUT`.
        var command: [String] {
            switch self {
            case .pyNaCl: ["python3", Self.tests.appendingPathComponent("HeraldAriesTests/vectors/didcomm_v1.py").path]
            case .acapyAskar: ["python3", Self.tests.appendingPathComponent("HeraldServerTests/EndToEnd/wallets/acapy_didcomm.py").path, "askar"]
            case .acapyNaCl: ["python3", Self.tests.appendingPathComponent("HeraldServerTests/EndToEnd/wallets/acapy_didcomm.py").path, "nacl"]
            }
        }
    }

    static let heraldSeed = String(repeating: "11", count: 32)
    static let walletSeed = String(repeating: "22", count: 32)

    func python(_ wallet: Wallet, _ command: String, _ input: [[String: Any]], directory: String) async throws -> [Any] {
        let inputPath = directory + "/didcomm-\(command)-in.json"
        let outputPath = directory + "/didcomm-\(command)-out.json"
        try JSONSerialization.data(withJSONObject: input).write(to: URL(fileURLWithPath: inputPath))
        let process = try ChildProcess(executable: "/usr/bin/env", arguments: wallet.command + [command, inputPath, outputPath])
        let exit = try await process.waitForExit(timeout: TestTime.bound(.seconds(120)))
        try #require(exit.status == 0 && !exit.timedOut, "\(wallet) \(command): \(process.output)")
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: outputPath))) as? [Any])
    }

    static func hex(_ text: String) -> String {
        text.utf8.map { String(format: "%02x", $0) }.joined()
    }

    @Test(arguments: Wallet.allCases)
    func walletTalksToHeraldInPackedEnvelopes(wallet packer: Wallet) async throws {
        let yaml = AriesEndToEndTests.ariesYAML + "  identity-key-file: $DIR/didcomm.key\n"
        try await Harness.with(frontDoorYAML: yaml, prepare: { directory in
            try (Self.heraldSeed + "\n").write(toFile: directory + "/didcomm.key", atomically: true, encoding: .utf8)
        }) { h in
            let identity = try await h.client.execute(uri: "/aries/v1/identity", method: .get)
            let herald = try #require((try JSONSerialization.jsonObject(with: Data(identity.body.readableBytesView)) as? [String: String])?["verkey"])
            let token = Harness.apnsToken(700)
            let apns = AriesEndToEndTests.apnsType
            let messages = [
                AriesEndToEndTests.set(apns, id: "e-1", token: token),
                AriesEndToEndTests.get(apns, id: "e-2"),
                #"{"@type":"https://didcomm.org/discover-features/1.0/query","@id":"e-3","query":"*"}"#,
                AriesEndToEndTests.get(apns, id: "e-4"),
            ]
            var packs: [[String: Any]] = messages.map { ["message": Self.hex($0), "recipient": herald, "sender_seed": Self.walletSeed] }
            packs.append(["message": Self.hex(messages[0]), "recipient": herald, "sender_seed": NSNull()])
            let envelopes = try await self.python(packer, "pack", packs, directory: h.directory).compactMap { $0 as? String }
            #expect(envelopes.count == 5)

            func post(_ envelope: String) async throws -> TestResponse {
                try await h.client.execute(
                    uri: "/aries/v1/didcomm",
                    method: .post,
                    headers: [.contentType: "application/didcomm-envelope-enc"],
                    body: ByteBuffer(string: envelope)
                )
            }
            var answers: [String] = []
            for envelope in envelopes.prefix(3) {
                let response = try await post(envelope)
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/didcomm-envelope-enc")
                answers.append(String(buffer: response.body))
            }
            let anoncrypt = try await post(envelopes[4])
            #expect(anoncrypt.status == .badRequest, "no sender to key device info by or answer to")
            let garbage = try await post(#"{"protected":"e30","iv":"","ciphertext":"","tag":""}"#)
            #expect(garbage.status == .badRequest)

            // The wallet's connection is its verkey; the mediator-style notify names it.
            let wallet = try #require(try await self.python(packer, "unpack", [["envelope": envelopes[0], "seed": Self.heraldSeed]], directory: h.directory).first as? [String: Any])
            let walletVerkey = try #require(wallet["sender"] as? String)
            let notified = try await AriesEndToEndTests.notify(h, #"{"connection_id":"didcomm:\#(walletVerkey)","message_id":"m-1","message_tag":"t-1"}"#)
            #expect(notified["result"] as? String == "delivered")
            #expect(h.production.accepted.first?.token == token)
            #expect(Harness.json(try #require(h.production.accepted.first?.payload))["message_id"] as? String == "m-1")

            // The token dies; the wallet asks again and hears it is not registered.
            h.production.script(token: token, .unregistered(since: Date()))
            _ = try await AriesEndToEndTests.notify(h, #"{"connection_id":"didcomm:\#(walletVerkey)","message_id":"m-2"}"#)
            let last = try await post(envelopes[3])
            answers.append(String(buffer: last.body))

            let opened = try await self.python(packer, "unpack", answers.map { ["envelope": $0, "seed": Self.walletSeed] }, directory: h.directory)
            let replies = try opened.map { item -> [String: Any] in
                let fields = try #require(item as? [String: Any])
                #expect(fields["sender"] as? String == herald, "authcrypt from Herald's verkey")
                let hex = try #require(fields["message"] as? String)
                let bytes = stride(from: 0, to: hex.count, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16)! }
                return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            }
            #expect(replies[0]["@type"] as? String == "\(apns)/ack")
            #expect(AriesEndToEndTests.thread(replies[0]) == "e-1")
            #expect(replies[1]["device_token"] as? String == token)
            #expect(replies[2]["@type"] as? String == "https://didcomm.org/discover-features/1.0/disclose")
            #expect(AriesEndToEndTests.code(replies[3]) == "not-registered-for-push-notifications")
        }
    }
}
