import Crypto
import HeraldDelivery

/// `POST /relay-to/production/<token>` (or `/relay-to-fcm/<app>/<token>`) with real Web Push
/// requests as Mastodon sends them: encrypted for a subscription's keys (`aes128gcm` or
/// `aesgcm`), `TTL: 172800`, `Urgency: normal`. A pool of messages encrypted before the run is
/// cycled through, so client crypto is not measured; the relay passes bodies through without
/// decrypting, so reusing one costs it nothing less.
public struct WebPushRelayScenario: LoadScenario {
    public enum Encoding: String, Sendable, CaseIterable {
        case aes128gcm
        case aesgcm
    }

    public var devices: Int
    /// `nil` for APNs (`/relay-to/production/…`), else the FCM relay app.
    public var fcmApp: String?
    let messages: [WebPushEncryption.Message]

    /// `payloadSize` is the plaintext's size, a Mastodon notification being about 400 bytes.
    public init(devices: Int, encoding: Encoding, payloadSize: Int, fcmApp: String? = nil, pool: Int = 64) throws {
        self.devices = max(devices, 1)
        self.fcmApp = fcmApp
        var messages: [WebPushEncryption.Message] = []
        for index in 0..<max(pool, 1) {
            let receiver = P256.KeyAgreement.PrivateKey().publicKey
            let auth = (0..<16).map { _ in UInt8.random(in: 0...255) }
            let head = Array(#"{"notification_id":\#(index),"notification_type":"mention","title":"bench","body":""#.utf8)
            let tail = Array(#""}"#.utf8)
            let plaintext = head + Array(repeating: UInt8(ascii: "x"), count: max(payloadSize - head.count - tail.count, 0)) + tail
            switch encoding {
            case .aes128gcm: messages.append(try WebPushEncryption.aes128gcm(plaintext, receiver: receiver, authSecret: auth))
            case .aesgcm: messages.append(try WebPushEncryption.aesgcm(plaintext, receiver: receiver, authSecret: auth))
            }
        }
        self.messages = messages
    }

    public var name: String { "webpush-relay" }
    public var notificationsPerRequest: Int { 1 }

    public func request(_ index: Int) -> LoadRequest {
        let message = self.messages[index % self.messages.count]
        let device = index % self.devices
        let path: String
        if let app = self.fcmApp {
            path = "/relay-to-fcm/\(app)/bench\(device):APA91b" + String(repeating: "r", count: 140)
        } else {
            let hex = String(device, radix: 16)
            path = "/relay-to/production/" + String(repeating: "0", count: 64 - hex.count) + hex
        }
        return LoadRequest(
            path: path,
            body: message.body,
            contentType: "application/octet-stream",
            headers: [("TTL", "172800"), ("Urgency", "normal")] + message.headers
        )
    }

    public func errorKind(status: Int, body: [UInt8]) -> String? {
        status == 201 ? nil : "http_\(status)"
    }
}
