import Foundation
public import HeraldCrypto
import HeraldStatus
import SwiftProtobuf

/// `POST /waku/v1/messages` with Status push requests, each for one registered device, as a
/// status-go sender builds them (ephemeral AMM key, ECIES to the server). The registrations
/// (`registrationBodies`, posted before the run) and the requests are built before the run;
/// every request has its own message id, so none is dropped as a duplicate.
public struct StatusPushScenario: LoadScenario {
    /// Bodies that register the devices, a batch of registrations each.
    public let registrationBodies: [[UInt8]]
    let bodies: [[UInt8]]
    /// Where this run's requests start in the prepared set, so a warm-up can use other ones.
    public var startIndex = 0

    public var name: String { "status-push" }
    public var notificationsPerRequest: Int { 1 }

    /// `devices` clients registered with APNs tokens under `topic`, and `count` push requests
    /// spread over them.
    public init(server: Secp256k1PublicKey, devices: Int, count: Int, topic: String) throws {
        let devices = max(devices, 1)
        let clients = (0..<devices).map { _ in StatusClient(server: server) }
        let accessToken = "b6ae4fde-bb65-11ea-b3de-0242ac130004"
        let installationID = "c6ae4fde-bb65-11ea-b3de-0242ac130004"
        var registrations: [WakuMessage] = []
        for (index, client) in clients.enumerated() {
            registrations.append(
                try client.registration(
                    installationID: installationID,
                    version: 1,
                    accessToken: accessToken,
                    deviceToken: String(format: "%064x", index + 1),
                    apnTopic: topic
                )
            )
        }
        let encoder = JSONEncoder()
        self.registrationBodies = try stride(from: 0, to: registrations.count, by: 100).map {
            Array(try encoder.encode(Array(registrations[$0..<min($0 + 100, registrations.count)])))
        }
        let sender = StatusClient(server: server)
        let ephemeral = Secp256k1PrivateKey()
        let author = StatusClient.hashed(StatusClient.keyString(sender.publicKey))
        self.bodies = try (0..<max(count, 1)).map { index in
            let client = clients[index % devices]
            var notification = Protobuf_PushNotification()
            notification.type = .message
            notification.chatID = Data(author)
            notification.author = Data(author)
            notification.publicKey = Data(client.hashedKey)
            notification.installationID = installationID
            notification.accessToken = accessToken
            var request = Protobuf_PushNotificationRequest()
            request.requests = [notification]
            request.messageID = Data(Keccak256.hash(Array("bench-\(index)".utf8)))
            return Array(try encoder.encode(try sender.pushRequest(request, ephemeral: ephemeral)))
        }
    }

    public func request(_ index: Int) -> LoadRequest {
        LoadRequest(path: "/waku/v1/messages", body: self.bodies[(self.startIndex + index) % self.bodies.count])
    }

    /// The prepared requests from index `start` on.
    public func starting(at start: Int) -> StatusPushScenario {
        var copy = self
        copy.startIndex = start
        return copy
    }

    /// Every new request is answered with a push response; a repeat (beyond the prepared set) is
    /// dropped as a duplicate, answered with an empty array.
    public func errorKind(status: Int, body: [UInt8]) -> String? {
        guard status == 200 else { return "http_\(status)" }
        return body.count > 2 ? nil : "no_answer"
    }
}
