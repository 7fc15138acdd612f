import Foundation
import HeraldCore
import HeraldDelivery
@testable import HeraldMatrix
import Testing

/// Every vector Sygnal 0.17.0's WebPush pushkin produced (scripts/matrix-webpush-vectors.py):
/// the JSON it encrypted, its Urgency and whether it set a Topic, what it dropped and what it
/// rejected, against what the gateway builds for the same device.
@Suite struct SygnalWebPushVectorTests {
    struct Vector: @unchecked Sendable, CustomTestStringConvertible {
        // @unchecked: the JSON objects are read once from the file and never mutated.
        let name: String
        let request: [String: Any]
        let sent: [[String: Any]]
        let answer: [String: Any]
        var testDescription: String { self.name }
    }

    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Vectors/sygnal-webpush-vectors.json")

    static func top() -> [String: Any] {
        guard let data = try? Data(contentsOf: Self.file), let top = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        return top
    }

    /// The allow-list of the app Sygnal ran with.
    static let allowedEndpoints: [String] = (((Self.top()["apps"] as? [String: Any])?["com.example.web"] as? [String: Any])?["allowed_endpoints"] as? [String]) ?? []

    static func vectors(_ list: String) -> [Vector] {
        (Self.top()[list] as? [[String: Any]] ?? []).compactMap { entry in
            guard let name = entry["name"] as? String, let request = entry["request"] as? [String: Any] else { return nil }
            return Vector(name: name, request: request, sent: entry["sent"] as? [[String: Any]] ?? [], answer: entry["answer"] as? [String: Any] ?? [:])
        }
    }

    static let payloads = Self.vectors("vectors")
    static let rejections = Self.vectors("rejections")

    static func built(_ vector: Vector) throws -> [MatrixGateway.Built] {
        let notification = try MatrixNotification(parsing: Array(try JSONSerialization.data(withJSONObject: vector.request)))
        return notification.devices.map { MatrixGateway.webPush(for: $0, of: notification, app: "web", deadline: .seconds(25)) }
    }

    @Test func thereAreVectors() {
        #expect(Self.payloads.count >= 40, "\(Self.file.path)")
        #expect(Self.rejections.count >= 30)
    }

    @Test(arguments: Self.payloads)
    func theJSONIsSygnals(_ vector: Vector) throws {
        let built = try Self.built(vector)
        var pushes: [PushNotification] = []
        for result in built {
            if case .push(let push) = result { pushes.append(push) }
        }
        #expect(pushes.count == vector.sent.count, "Sygnal sent \(vector.sent.count)")
        for (push, sent) in zip(pushes, vector.sent) {
            let mine = try #require(try JSONSerialization.jsonObject(with: Data(push.payload)) as? NSObject)
            var want = try #require(sent["payload"] as? [String: Any])
            if (sent["plaintext_bytes"] as? Int ?? 0) > WebPushRequest.maximumPayload {
                // Sygnal sends several records, which push services refuse; Herald drops content.
                want["content"] = nil
                #expect(push.payload.count <= WebPushRequest.maximumPayload)
            }
            #expect(mine == want as NSObject, "\(vector.name): \(String(decoding: push.payload, as: UTF8.self).prefix(400))")
            #expect(WebPushRequest.urgency(for: push.priority) == sent["urgency"] as? String)
            #expect((push.collapseID != nil) == !(sent["topic"] is NSNull), "a Topic only for only_last_per_room")
            let subscription = try #require(try? WebPushSubscription(token: push.device.token))
            let info = try #require(sent["subscription_info"] as? [String: Any])
            // The same URL; Herald writes the host in lower case.
            #expect(subscription.endpoint == (try WebPushSubscription.Endpoint(try #require(info["endpoint"] as? String))))
        }
    }

    /// Sygnal's device checks: what it rejects Herald rejects; what it drops (events only, an
    /// endpoint off its list) Herald does not push; what makes Sygnal fail with 500 (keys that
    /// are no keys, an endpoint that is no https URL) Herald rejects, since no retry can help.
    @Test(arguments: Self.rejections)
    func theDeviceChecksAreSygnals(_ vector: Vector) throws {
        let name = vector.name
        if name == "data_not_object" {
            #expect(throws: MatrixError.self) { try Self.built(vector) }
            return
        }
        guard !name.hasPrefix("endpoint_") || name.hasSuffix("not_allowed_missing_auth") || name == "endpoint_not_string" || name == "endpoint_not_http" || name == "endpoint_userinfo_not_allowed" else {
            if name.contains("not_allowed") {
                // Sygnal's allow-list is the provider's here: the endpoint must be refused by it.
                let policy = WebPushEndpointPolicy(allowedEndpoints: Self.allowedEndpoints.map { Glob($0, caseInsensitive: true) })
                let device = try #require((vector.request["notification"] as? [String: Any])?["devices"] as? [[String: Any]]).first
                let endpoint = try #require((device?["data"] as? [String: Any])?["endpoint"] as? String)
                // Sygnal matches `fcm.googleapis.com:443` as a name other than `fcm.googleapis.com`;
                // Herald reads both as the one origin they are.
                let allows = policy.allows(try WebPushSubscription.Endpoint(endpoint))
                #expect(allows == (name == "endpoint_default_port_not_allowed"), "\(endpoint)")
            }
            return
        }
        let rejected = Set((vector.answer["body"] as? [String: Any])?["rejected"] as? [String] ?? [])
        let devices = try #require((vector.request["notification"] as? [String: Any])?["devices"] as? [[String: Any]])
        for (device, result) in zip(devices, try Self.built(vector)) {
            let pushkey = device["pushkey"] as? String ?? ""
            switch result {
            case .refused(.rejected):
                #expect(rejected.contains(pushkey) || vector.answer["status"] as? Int == 500, "Sygnal did not reject \(name)")
            case .nothing, .refused(.skipped):
                #expect(!rejected.contains(pushkey) && vector.sent.isEmpty, "Sygnal rejected or sent \(name)")
            default:
                // Sent: what came of it is the provider's (WebPushProviderTests, the Matrix end-to-end tests).
                #expect(!vector.sent.isEmpty, "\(name): \(result)")
            }
        }
    }
}
