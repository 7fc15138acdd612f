import Crypto
import Foundation
import HeraldTesting
import HummingbirdTesting
import Testing

/// Real Web Push senders through the relay: Python's pywebpush encrypts and sends (both
/// encodings, with and without VAPID in both spellings) to a live node; what the strict mocks
/// received is decoded and decrypted by http_ece with each subscription's private key, in Python,
/// sharing no code with Herald. The plaintext must come back byte for byte.
@Suite struct WebPushRealClientTests {
    typealias Harness = PushNodeHarness

    static let publicOrigin = "https://relay.herald.test"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("webpush/relay_client.py").path

    struct Push {
        var path: String
        var token: String
        var encoding: String
        var vapid: String
        var plaintext: [UInt8]
    }

    /// Every combination of encoding and destination, each with its own token and plaintext.
    static func pushes(vapid: (String) -> String) -> [Push] {
        var pushes: [Push] = []
        for (index, encoding) in ["aes128gcm", "aesgcm"].enumerated() {
            for (offset, environment) in ["production", "development"].enumerated() {
                let token = Harness.apnsToken(100 + index * 10 + offset)
                pushes.append(Push(path: "/relay-to/\(environment)/\(token)/acct-\(index)", token: token, encoding: encoding, vapid: vapid(encoding), plaintext: Self.plaintext(pushes.count)))
            }
            let token = Harness.fcmToken(100 + index)
            pushes.append(Push(path: "/relay-to-fcm/droid/\(token)", token: token, encoding: encoding, vapid: vapid(encoding), plaintext: Self.plaintext(pushes.count)))
        }
        return pushes
    }

    /// A Mastodon-like notification, different for each push.
    static func plaintext(_ index: Int) -> [UInt8] {
        Array(#"{"access_token":"t\#(index)","preferred_locale":"en","notification_id":\#(1000 + index),"notification_type":"mention","icon":"https://m.example/a.png","title":"Alice mentioned you","body":"hello <&> \#(index)"}"#.utf8)
    }

    @Test func pywebpushRoundTripWithoutVAPID() async throws {
        try await Harness.with(setup: .live) { h in
            let pushes = Self.pushes { _ in "none" }
            let results = try await self.send(pushes, port: try #require(h.client.port), directory: h.directory)
            for (push, result) in zip(pushes, results) {
                #expect(result["status"] as? Int == 201, "\(push.path): \(result["body"] ?? "")")
                #expect((result["headers"] as? [String: String])?["location"]?.hasPrefix("/webpush/messages/") == true)
            }
            try await self.expectDecrypted(pushes, results: results, harness: h)
        }
    }

    @Test func pywebpushRoundTripThroughAVAPIDAllowList() async throws {
        let allowed = P256.Signing.PrivateKey()
        let other = P256.Signing.PrivateKey()
        let key = Self.base64URL(allowed.publicKey.x963Representation)
        try await Harness.with(
            // Behind a proxy the relay's public origin is not the address pywebpush reaches.
            extraYAML: "  vapid-keys: \(key)\n  vapid-audience: \(Self.publicOrigin)\n",
            setup: .live,
            prepare: { directory in
                try allowed.pemRepresentation.write(toFile: directory + "/vapid.pem", atomically: true, encoding: .utf8)
                try other.pemRepresentation.write(toFile: directory + "/other.pem", atomically: true, encoding: .utf8)
            }
        ) { h in
            // RFC 8292's `vapid t=,k=` for standard subscriptions, the drafts' `WebPush` with
            // `p256ecdsa` in Crypto-Key for legacy ones, as Mastodon sends them.
            let pushes = Self.pushes { $0 == "aes128gcm" ? "vapid" : "webpush" }
            let port = try #require(h.client.port)
            let results = try await self.send(pushes, port: port, directory: h.directory, vapidKeyFile: h.directory + "/vapid.pem")
            for (push, result) in zip(pushes, results) {
                #expect(result["status"] as? Int == 201, "\(push.path) with \(push.vapid): \(result["body"] ?? "")")
            }
            try await self.expectDecrypted(pushes, results: results, harness: h)

            let token = Harness.apnsToken(199)
            let refused = [
                Push(path: "/relay-to/production/\(token)", token: token, encoding: "aes128gcm", vapid: "none", plaintext: [1]),
                Push(path: "/relay-to/production/\(token)", token: token, encoding: "aes128gcm", vapid: "vapid", plaintext: [2]),
            ]
            let refusals = try await self.send(Array(refused.prefix(1)), port: port, directory: h.directory)
                + self.send(Array(refused.suffix(1)), port: port, directory: h.directory, vapidKeyFile: h.directory + "/other.pem")
            #expect(refusals.map { $0["status"] as? Int } == [401, 403])
            #expect(!h.production.accepted.contains { $0.token == token })
        }
    }

    /// Sends `pushes` with pywebpush; returns its JSON record of each.
    func send(_ pushes: [Push], port: Int, directory: String, vapidKeyFile: String? = nil) async throws -> [[String: Any]] {
        let input = pushes.map { push -> [String: Any] in
            [
                "endpoint": "http://127.0.0.1:\(port)\(push.path)",
                "encoding": push.encoding,
                "vapid": push.vapid,
                "vapid_key_file": vapidKeyFile ?? "",
                "aud": Self.publicOrigin,
                "plaintext": push.plaintext.map { String(format: "%02x", $0) }.joined(),
                "headers": ["Urgency": "normal"],
            ]
        }
        let output = try await self.runScript("send", input: input, directory: directory)
        let results = try #require(output as? [[String: Any]])
        #expect(results.count == pushes.count)
        return results
    }

    /// Finds each push at its mock, has http_ece decrypt it, and compares with what was sent.
    func expectDecrypted(_ pushes: [Push], results: [[String: Any]], harness h: Harness) async throws {
        var items: [[String: Any]] = []
        for (push, result) in zip(pushes, results) {
            let fields: [String: String]
            if push.path.hasPrefix("/relay-to-fcm/") {
                fields = try #require(h.fcm.accepted.first { $0.target == .token(push.token) }?.data, "\(push.path) reached FCM")
            } else {
                let mock = push.path.contains("/production/") ? h.production : h.sandbox
                let accepted = try #require(mock.accepted.first { $0.token == push.token }, "\(push.path) reached its APNs environment")
                let json = Harness.json(accepted.payload)
                fields = json.compactMapValues { $0 as? String }
                #expect(accepted.payload.count <= 4096)
                #expect(json["x"] as? String == push.path.split(separator: "/").last.map(String.init))
            }
            #expect((fields["k"] != nil) == (push.encoding == "aesgcm"), "k and s only for aesgcm")
            items.append(["fields": fields, "encoding": push.encoding, "private_key": result["private_key"] ?? "", "auth": result["auth"] ?? ""])
        }
        let plaintexts = try #require(try await self.runScript("decrypt", input: items, directory: h.directory) as? [String])
        #expect(plaintexts == pushes.map { $0.plaintext.map { String(format: "%02x", $0) }.joined() })
    }

    func runScript(_ command: String, input: Any, directory: String) async throws -> Any {
        let inputPath = directory + "/\(command)-in.json"
        let outputPath = directory + "/\(command)-out.json"
        try JSONSerialization.data(withJSONObject: input).write(to: URL(fileURLWithPath: inputPath))
        try? FileManager.default.removeItem(atPath: outputPath)
        let process = try ChildProcess(executable: "/usr/bin/env", arguments: ["python3", Self.script, command, inputPath, outputPath])
        let exit = try await process.waitForExit(timeout: TestTime.bound(.seconds(120)))
        #expect(exit.status == 0 && !exit.timedOut, "relay_client.py \(command): \(process.output)")
        let data = try Data(contentsOf: URL(fileURLWithPath: outputPath))
        return try JSONSerialization.jsonObject(with: data)
    }

    static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
