import HeraldCore
import HeraldCrypto
import HeraldStatus
import HeraldTesting
import Testing

/// Checks the server's replies to one vector message against the Python expectation.
struct StatusExpectationCheck {
    let vectors = StatusVectors.shared
    let serverPublicKey: Secp256k1PublicKey

    func check(
        _ replies: [WakuMessage],
        pushes: [StatusPush],
        against expectation: StatusVectors.Expectation,
        _ name: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        guard expectation.kind != "none" else {
            #expect(replies.isEmpty, "\(name): expected no answer", sourceLocation: sourceLocation)
            #expect(pushes.isEmpty, "\(name): expected no push", sourceLocation: sourceLocation)
            return
        }
        try #require(replies.count == 1, "\(name): expected one answer, got \(replies.count)", sourceLocation: sourceLocation)
        let reply = replies[0]
        let recipient = try Secp256k1PublicKey(bytes: hex(expectation.recipientPublic!))
        #expect(reply.contentTopic == ContentTopic.partitioned(recipient).description, "\(name)", sourceLocation: sourceLocation)
        if let topic = expectation.contentTopic {
            #expect(reply.contentTopic == topic, "\(name)", sourceLocation: sourceLocation)
        }
        #expect(reply.version == 1)
        // A key whose private half the vectors do not hold (a recovered stranger) cannot open it.
        guard let recipientName = expectation.recipient, let keys = self.vectors.keys[recipientName] else { return }
        let answer = try StatusAnswer(reply, openedWith: Secp256k1PrivateKey(rawRepresentation: hex(keys.private)))
        #expect(answer.signer == self.serverPublicKey, "\(name): answers are signed by the server", sourceLocation: sourceLocation)
        switch expectation.kind {
        case "registrationResponse":
            #expect(answer.type == 17, sourceLocation: sourceLocation)
            let response = try answer.registrationResponse()
            #expect(response.success == expectation.success, "\(name)", sourceLocation: sourceLocation)
            #expect(response.error.rawValue == expectation.error, "\(name): error", sourceLocation: sourceLocation)
            #expect(Hex.encode(response.requestID) == expectation.requestID, "\(name): request_id", sourceLocation: sourceLocation)
            #expect(pushes.isEmpty, sourceLocation: sourceLocation)
        case "queryResponse":
            #expect(answer.type == 19, sourceLocation: sourceLocation)
            let response = try answer.queryResponse()
            #expect(response.success == expectation.success, "\(name)", sourceLocation: sourceLocation)
            #expect(Hex.encode(response.messageID) == expectation.messageID, "\(name): message_id", sourceLocation: sourceLocation)
            let infos = response.info.sorted { $0.installationID < $1.installationID }
            let expected = expectation.infos ?? []
            try #require(infos.count == expected.count, "\(name): info count", sourceLocation: sourceLocation)
            for (info, want) in zip(infos, expected) {
                #expect(info.installationID == want.installationID, sourceLocation: sourceLocation)
                #expect(Hex.encode(info.publicKey) == want.publicKey, sourceLocation: sourceLocation)
                #expect(info.accessToken == want.accessToken, "\(name): access token", sourceLocation: sourceLocation)
                #expect(info.allowedKeyList.map { Hex.encode($0) } == want.allowedKeyList, sourceLocation: sourceLocation)
                #expect(Hex.encode(info.grant) == want.grant, sourceLocation: sourceLocation)
                #expect(info.version == want.version, sourceLocation: sourceLocation)
                #expect(info.serverPublicKey.isEmpty, "status-go never sets server_public_key", sourceLocation: sourceLocation)
            }
        case "pushResponse":
            #expect(answer.type == 21, sourceLocation: sourceLocation)
            let response = try answer.pushResponse()
            #expect(Hex.encode(response.messageID) == expectation.messageID, "\(name): message_id", sourceLocation: sourceLocation)
            let reports = response.reports.map { "\($0.success) \($0.error.rawValue) \(Hex.encode($0.publicKey)) \($0.installationID)" }
            let wanted = (expectation.reports ?? []).map { "\($0.success) \($0.error) \($0.publicKey) \($0.installationID)" }
            #expect(reports == wanted, "\(name): reports", sourceLocation: sourceLocation)
            let platforms = [1: "apns", 2: "fcm"]
            let deliveries = pushes.map { "\(platforms[$0.gorushPlatform] ?? "none") \($0.device.token) \($0.topic) \($0.message) \($0.encryptedMessage) \($0.chatID) \($0.publicKey)" }
            let wantedDeliveries = (expectation.deliveries ?? []).map {
                "\($0.platform) \($0.token) \($0.topic) \($0.message) \($0.data["encryptedMessage"]!) \($0.data["chatId"]!) \($0.data["publicKey"]!)"
            }
            #expect(deliveries == wantedDeliveries, "\(name): deliveries", sourceLocation: sourceLocation)
            if let body = expectation.gorushBody {
                #expect(String(decoding: StatusGorushBody.encode(pushes), as: UTF8.self) == body, "\(name): gorush body", sourceLocation: sourceLocation)
            }
        default:
            Issue.record("unknown expectation kind \(expectation.kind)", sourceLocation: sourceLocation)
        }
    }
}
