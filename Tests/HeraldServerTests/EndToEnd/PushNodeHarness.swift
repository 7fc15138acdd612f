import Crypto
import Foundation
import HeraldConfig
import HeraldServer
import HeraldTesting
import Hummingbird
import HummingbirdTesting
import HTTPTypes
import Logging
import NIOCore

/// A node with three apps on strict mocks, as an operator sets one up: `toot` (the mock APNs
/// `production`, and the mock FCM), `toot-dev` (a second mock APNs, `sandbox`) and `droid` (the
/// mock FCM). By default its front door is the Web Push relay: `/relay-to/production/…` to
/// `toot`, every other environment to `toot-dev`, `/relay-to-fcm/droid/…`; `frontDoorYAML`
/// replaces that. The API has a bearer token, which relay senders and registering apps never
/// send. `$DIR` in the YAML given is the node's temporary directory.
struct PushNodeHarness {
    static let topic = "cx.c3.toot"
    static let apiToken = "api-s3cret"

    let production: MockAPNS
    let sandbox: MockAPNS
    let fcm: MockFCM
    let client: any TestClientProtocol
    let directory: String
    let node: HeraldNode

    static let webPushYAML = """
        webpush:
          production-app: toot
          sandbox-app: toot-dev
          fcm-apps: droid
          delivery-deadline: $DELIVERY_DEADLINE

        """

    static func with(
        frontDoorYAML: String = PushNodeHarness.webPushYAML,
        extraYAML: String = "",
        clock: any Clock<Duration> = ContinuousClock(),
        webPushDeliveryDeadline: Duration = TestTime.bound(.seconds(60)),
        setup: TestingSetup = .router,
        prepare: @Sendable (String) throws -> Void = { _ in },
        _ body: @escaping @Sendable (PushNodeHarness) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory { directory in
            let key = P256.Signing.PrivateKey()
            let account = try TestServiceAccount(projectID: "herald-relay")
            let mockKeys = MockAPNS.Configuration(keys: [.init(keyID: "RELAY00001", teamID: "TEAM000001", publicKey: key.publicKey)])
            let production = try await MockAPNS.start(configuration: mockKeys)
            let sandbox = try await MockAPNS.start(configuration: mockKeys)
            let fcm = try await MockFCM.start(configuration: account.mockConfiguration())
            func stopPeers() async {
                try? await production.shutdown()
                try? await sandbox.shutdown()
                await fcm.shutdown()
            }
            do {
                try prepare(directory)
                try key.pemRepresentation.write(toFile: directory + "/key.p8", atomically: true, encoding: .utf8)
                try account.json(tokenURI: fcm.tokenURI).write(toFile: directory + "/sa.json", atomically: true, encoding: .utf8)
                try production.certificatePEM.write(toFile: directory + "/production-ca.pem", atomically: true, encoding: .utf8)
                try sandbox.certificatePEM.write(toFile: directory + "/sandbox-ca.pem", atomically: true, encoding: .utf8)
                try fcm.certificatePEM.write(toFile: directory + "/fcm-ca.pem", atomically: true, encoding: .utf8)
                let yaml = """
                    store:
                      path: \(directory)/data
                    api:
                      bearer-token: \(apiToken)
                    apps:
                      toot:
                        apns:
                          key-file: \(directory)/key.p8
                          key-id: RELAY00001
                          team-id: TEAM000001
                          topic: \(topic)
                          host: 127.0.0.1
                          port: \(production.port)
                          ca-file: \(directory)/production-ca.pem
                        fcm:
                          service-account-file: \(directory)/sa.json
                          host: 127.0.0.1
                          port: \(fcm.port)
                          ca-file: \(directory)/fcm-ca.pem
                      toot-dev:
                        apns:
                          key-file: \(directory)/key.p8
                          key-id: RELAY00001
                          team-id: TEAM000001
                          topic: \(topic)
                          environment: sandbox
                          host: 127.0.0.1
                          port: \(sandbox.port)
                          ca-file: \(directory)/sandbox-ca.pem
                      droid:
                        fcm:
                          service-account-file: \(directory)/sa.json
                          host: 127.0.0.1
                          port: \(fcm.port)
                          ca-file: \(directory)/fcm-ca.pem

                    """ + (frontDoorYAML + extraYAML).replacingOccurrences(of: "$DIR", with: directory)
                    .replacingOccurrences(of: "$DELIVERY_DEADLINE", with: "\(webPushDeliveryDeadline.components.seconds)s")
                try yaml.write(toFile: directory + "/herald.yaml", atomically: true, encoding: .utf8)
                let effective = try await HeraldConfiguration.load(from: ConfigurationSources(filePath: directory + "/herald.yaml"))
                let node = try HeraldNode.build(configuration: effective.configuration, logger: Logger(label: "test"), clock: clock)
                try await node.application.test(setup) { client in
                    try await body(PushNodeHarness(production: production, sandbox: sandbox, fcm: fcm, client: client, directory: directory, node: node))
                }
            } catch {
                await stopPeers()
                throw error
            }
            await stopPeers()
        }
    }

    static func apnsToken(_ index: Int) -> String {
        String(format: "%064x", index + 0xA000)
    }

    static func fcmToken(_ index: Int) -> String {
        "relay\(index):APA91b" + String(repeating: "w", count: 120)
    }

    /// The headers Mastodon sends on a standard (`aes128gcm`) subscription, without VAPID.
    static let standard: HTTPFields = [
        .contentType: "application/octet-stream",
        .contentEncoding: "aes128gcm",
        HTTPField.Name("TTL")!: "172800",
        HTTPField.Name("Urgency")!: "normal",
    ]

    /// A legacy (`aesgcm`) subscription's headers, with the relay page's §8.3 salt and key.
    static let legacy: HTTPFields = [
        .contentType: "application/octet-stream",
        .contentEncoding: "aesgcm",
        HTTPField.Name("TTL")!: "172800",
        HTTPField.Name("Encryption")!: "salt=DGv6ra1nlYgDCS1FRnbzlw",
        HTTPField.Name("Crypto-Key")!: "dh=BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8",
    ]

    /// Posts `body` to `path` with `headers`; `changes` replaces or removes (`nil`) headers.
    func post(
        _ path: String,
        headers: HTTPFields = PushNodeHarness.standard,
        changes: [String: String?] = [:],
        body: [UInt8] = Array(repeating: 7, count: 120)
    ) async throws -> TestResponse {
        var fields = headers
        for (name, value) in changes {
            let fieldName = HTTPField.Name(name)!
            fields[fieldName] = nil
            if let value { fields[fieldName] = value }
        }
        return try await self.client.execute(uri: path, method: .post, headers: fields, body: ByteBuffer(bytes: body))
    }

    func metrics() async throws -> String {
        String(buffer: try await self.client.execute(uri: "/metrics", method: .get).body)
    }

    /// The payload the mock accepted as JSON.
    static func json(_ payload: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]) ?? [:]
    }
}
