/// `POST /api/push` with gorush's request: `tokensPerRequest` device tokens drawn round-robin
/// from `devices`, and a `data` field padded so the APNs payload is about `payloadSize` bytes.
public struct GorushPushScenario: LoadScenario {
    public enum Platform: String, Sendable, CaseIterable {
        case ios
        case android
    }

    public var devices: Int
    public var tokensPerRequest: Int
    public var payloadSize: Int
    public var platform: Platform
    public var topic: String?

    public init(devices: Int, tokensPerRequest: Int, payloadSize: Int, platform: Platform, topic: String? = nil) {
        self.devices = max(devices, 1)
        self.tokensPerRequest = max(tokensPerRequest, 1)
        self.payloadSize = max(payloadSize, 0)
        self.platform = platform
        self.topic = topic
    }

    public var name: String { "gorush-push" }
    public var notificationsPerRequest: Int { self.tokensPerRequest }

    public func request(_ index: Int) -> LoadRequest {
        var tokens: [String] = []
        tokens.reserveCapacity(self.tokensPerRequest)
        for slot in 0..<self.tokensPerRequest {
            tokens.append(self.token((index * self.tokensPerRequest + slot) % self.devices))
        }
        let list = tokens.map { "\"\($0)\"" }.joined(separator: ",")
        // `{"aps":{"alert":"bench"},"pad":"…"}` is 32 bytes before the padding.
        let padding = String(repeating: "x", count: max(self.payloadSize - 32, 0))
        let topic = self.topic.map { #","topic":"\#($0)""# } ?? ""
        let platform = self.platform == .ios ? 1 : 2
        let body = #"{"notifications":[{"tokens":[\#(list)],"platform":\#(platform),"message":"bench","data":{"pad":"\#(padding)"}\#(topic)}]}"#
        return LoadRequest(path: "/api/push", body: Array(body.utf8))
    }

    public func errorKind(status: Int, body: [UInt8]) -> String? {
        guard status == 200 else { return "http_\(status)" }
        // Sync mode lists failures; success is an empty list.
        let text = String(decoding: body, as: UTF8.self)
        return text.contains(#""logs":[]"#) ? nil : "push_failed"
    }

    /// Device `index`'s token: 64 hex digits for APNs, an FCM-shaped token for Android.
    func token(_ index: Int) -> String {
        switch self.platform {
        case .ios:
            let hex = String(index, radix: 16)
            return String(repeating: "0", count: 64 - hex.count) + hex
        case .android:
            return "bench\(index):APA91b" + String(repeating: "b", count: 140)
        }
    }
}
