import Foundation
import HeraldCore
import HeraldCrypto
import HeraldStatus
import HeraldTesting
import Testing

/// A registered client and a sender, for filter and robustness cases built in Swift.
struct StatusScenario {
    static let accessToken = "b6ae4fde-bb65-11ea-b3de-0242ac130004"
    static let installationID = "c6ae4fde-bb65-11ea-b3de-0242ac130004"
    static let deviceToken = String(repeating: "ab", count: 32)

    let harness: StatusServerHarness
    let client: StatusClient
    let sender: StatusClient
    let ephemeral = Secp256k1PrivateKey()

    init(_ harness: StatusServerHarness) {
        self.harness = harness
        self.client = StatusClient(server: harness.serverKey.publicKey)
        self.sender = StatusClient(server: harness.serverKey.publicKey)
    }

    /// Registers the client (version 1) with `configure` applied; returns the response.
    @discardableResult
    func register(
        version: UInt64 = 1,
        configure: (inout Protobuf_PushNotificationRegistration) -> Void = { _ in }
    ) async throws -> Protobuf_PushNotificationRegistrationResponse {
        let message = try self.client.registration(
            installationID: Self.installationID,
            version: version,
            accessToken: Self.accessToken,
            deviceToken: Self.deviceToken,
            apnTopic: "im.status.ethereum",
            configure: configure
        )
        let replies = await self.harness.server.handle(message)
        try #require(replies.count == 1)
        return try StatusAnswer(replies[0], openedWith: self.client.identity).registrationResponse()
    }

    /// A push request with one MESSAGE notification for the client, as the sender sends it.
    func pushRequestMessage(messageID: [UInt8], type: Protobuf_PushNotification.PushNotificationType = .message) throws -> WakuMessage {
        let request = Protobuf_PushNotificationRequest.notifying(
            self.client.hashedKey,
            installationID: Self.installationID,
            accessToken: Self.accessToken,
            type: type,
            messageID: messageID
        )
        return try self.sender.pushRequest(request, ephemeral: self.ephemeral)
    }

    /// Sends one notification to the client; returns its reports and whether a push went out.
    func push(
        type: Protobuf_PushNotification.PushNotificationType,
        chatID: [UInt8],
        author: [UInt8],
        accessToken: String = accessToken
    ) async throws -> (reports: [Protobuf_PushNotificationReport], pushed: Bool) {
        var notification = Protobuf_PushNotification()
        notification.type = type
        notification.chatID = Data(chatID)
        notification.author = Data(author)
        notification.publicKey = Data(self.client.hashedKey)
        notification.installationID = Self.installationID
        notification.accessToken = accessToken
        var request = Protobuf_PushNotificationRequest()
        request.requests = [notification]
        request.messageID = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        let before = self.harness.delivery.pushes.count
        let replies = await self.harness.server.handle(try self.sender.pushRequest(request, ephemeral: self.ephemeral))
        try #require(replies.count == 1)
        let response = try StatusAnswer(replies[0], openedWith: self.ephemeral).pushResponse()
        #expect(response.messageID == request.messageID)
        return (response.reports, self.harness.delivery.pushes.count > before)
    }

    var senderKeyString: String { StatusClient.keyString(self.sender.publicKey) }
}
