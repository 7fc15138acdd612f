import Crypto
import Foundation
import HeraldCore
import HeraldTesting
import Testing

/// A strict Web Push push service in Python (`webpush/push_service.py`): it checks every header
/// and the VAPID token, decrypts each message with http_ece and records what it got, sharing no
/// code with Herald. Runs on 127.0.0.1 over TLS with a certificate for `localhost`.
struct PushServicePeer {
    enum Behaviour: String {
        case ok, gone, expired, forbidden
        case tooBig = "too-big"
        case busyOnce = "busy-once"
        case errorOnce = "error-once"
    }

    /// One message as the push service recorded it.
    struct Received {
        var id: String
        var status: Int
        var plaintext: [UInt8]?
        var headers: [String: String]
        var vapid: [String: Any]
        var violation: String?
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("webpush/push_service.py").path

    let port: Int
    /// The CA file a provider trusts the peer with.
    let certificateFile: String
    let recordFile: String
    let subscriptions: [String: (key: P256.KeyAgreement.PrivateKey, auth: [UInt8])]

    /// The device token of subscription `id`: the JSON a browser gives, its endpoint on `host`.
    func token(_ id: String, host: String = "localhost") -> String {
        let subscription = self.subscriptions[id]!
        let endpoint = "https://\(host):\(self.port)/push/\(id)"
        return #"{"endpoint":"\#(endpoint)","expirationTime":null,"keys":{"p256dh":"\#(Base64URL.encode(subscription.key.publicKey.x963Representation))","auth":"\#(Base64URL.encode(subscription.auth))"}}"#
    }

    /// Everything recorded so far, in order.
    func received() throws -> [Received] {
        guard let text = try? String(contentsOfFile: self.recordFile, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let plaintext = (object["plaintext"] as? String).map { hex in
                stride(from: 0, to: hex.count, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16)! }
            }
            return Received(
                id: object["id"] as? String ?? "",
                status: object["status"] as? Int ?? 0,
                plaintext: plaintext,
                headers: object["headers"] as? [String: String] ?? [:],
                vapid: object["vapid"] as? [String: Any] ?? [:],
                violation: object["violation"] as? String
            )
        }
    }

    /// Waits until `count` messages were recorded.
    func waitForReceived(_ count: Int) async throws -> [Received] {
        try await waitUntil("\(count) messages at the push service", observing: { try self.received() }) { $0.count >= count }
    }

    /// Starts the peer with `subscriptions` (id → behaviour); `vapidKey` is the only VAPID key it
    /// takes (any when `nil`).
    static func with<T>(
        subscriptions behaviours: [String: Behaviour],
        vapidKey: String? = nil,
        _ body: (PushServicePeer) async throws -> T
    ) async throws -> T {
        try await withTemporaryDirectory { directory in
            let certificate = try TestCertificate()
            try certificate.certificatePEM.write(toFile: directory + "/cert.pem", atomically: true, encoding: .utf8)
            try certificate.privateKeyPEM.write(toFile: directory + "/key.pem", atomically: true, encoding: .utf8)
            var subscriptions: [String: (key: P256.KeyAgreement.PrivateKey, auth: [UInt8])] = [:]
            var configured: [String: Any] = [:]
            for (id, behaviour) in behaviours {
                let key = P256.KeyAgreement.PrivateKey()
                let auth = (0..<16).map { _ in UInt8.random(in: 0...255) }
                subscriptions[id] = (key, auth)
                configured[id] = ["private_key": Self.hex(key.rawRepresentation), "auth": Self.hex(auth), "behaviour": behaviour.rawValue]
            }
            let configuration: [String: Any] = [
                "cert": directory + "/cert.pem", "key": directory + "/key.pem", "host": "127.0.0.1", "port": 0,
                "ready_file": directory + "/ready.json", "record_file": directory + "/received.jsonl",
                "subscriptions": configured, "vapid_public_key": vapidKey ?? NSNull(), "audience": NSNull(),
            ]
            try JSONSerialization.data(withJSONObject: configuration).write(to: URL(fileURLWithPath: directory + "/peer.json"))
            let process = try ChildProcess(executable: "/usr/bin/env", arguments: ["python3", Self.script, directory + "/peer.json"])
            do {
                let port = try await waitUntil("push_service.py listening: \(process.output)", within: .seconds(60), observing: {
                    (try? Data(contentsOf: URL(fileURLWithPath: directory + "/ready.json")))
                        .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }?["port"] as? Int
                }) { $0 != nil || !process.isRunning }
                let peer = PushServicePeer(
                    port: try #require(port, "push_service.py exited: \(process.output)"),
                    certificateFile: directory + "/cert.pem",
                    recordFile: directory + "/received.jsonl",
                    subscriptions: subscriptions
                )
                let result = try await body(peer)
                process.signal(SIGTERM)
                _ = try await process.waitForExit(timeout: TestTime.bound(.seconds(10)))
                return result
            } catch {
                process.signal(SIGKILL)
                _ = try? await process.waitForExit(timeout: TestTime.bound(.seconds(10)))
                throw error
            }
        }
    }

    static func hex(_ bytes: some DataProtocol) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
