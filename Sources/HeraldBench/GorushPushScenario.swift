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
    /// The body after the token list, the same for every request: built once, since the
    /// generator's CPU per request is what a user's load test can reach.
    private let tail: [UInt8]

    public init(devices: Int, tokensPerRequest: Int, payloadSize: Int, platform: Platform, topic: String? = nil) {
        self.devices = max(devices, 1)
        self.tokensPerRequest = max(tokensPerRequest, 1)
        self.payloadSize = max(payloadSize, 0)
        self.platform = platform
        self.topic = topic
        // `{"aps":{"alert":"bench"},"pad":"…"}` is 32 bytes before the padding.
        let padding = String(repeating: "x", count: max(self.payloadSize - 32, 0))
        let topicField = topic.map { #","topic":"\#($0)""# } ?? ""
        let number = platform == .ios ? 1 : 2
        self.tail = Array(#"],"platform":\#(number),"message":"bench","data":{"pad":"\#(padding)"}\#(topicField)}]}"#.utf8)
    }

    public var name: String { "gorush-push" }
    public var notificationsPerRequest: Int { self.tokensPerRequest }

    public func request(_ index: Int) -> LoadRequest {
        var body: [UInt8] = []
        body.reserveCapacity(32 + self.tokensPerRequest * 160 + self.tail.count)
        body += #"{"notifications":[{"tokens":["#.utf8
        for slot in 0..<self.tokensPerRequest {
            if slot > 0 { body.append(UInt8(ascii: ",")) }
            body.append(UInt8(ascii: "\""))
            body += self.token((index * self.tokensPerRequest + slot) % self.devices).utf8
            body.append(UInt8(ascii: "\""))
        }
        body += self.tail
        return LoadRequest(path: "/api/push", body: body)
    }

    public func errorKind(status: Int, body: [UInt8]) -> String? {
        guard status == 200 else { return "http_\(status)" }
        // Sync mode lists failures; success is an empty list.
        let empty = Array(#""logs":[]"#.utf8)
        guard body.count >= empty.count else { return "push_failed" }
        for start in 0...(body.count - empty.count) where body[start] == empty[0] && body[start..<start + empty.count].elementsEqual(empty) {
            return nil
        }
        return "push_failed"
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
