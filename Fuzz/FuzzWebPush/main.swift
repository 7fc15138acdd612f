import Foundation
import FuzzSupport
import HeraldWebPush

// Web Push as the relay receives it (webpush-relay.md): the input is an HTTP message written as
// text (FuzzSupport's HTTPMessageText), its first line the request path. The relay keeps the
// body encrypted and never reads an aes128gcm header block from it; what it parses is the path,
// the headers (Content-Encoding, Crypto-Key, Encryption, TTL, Urgency, Topic, and Authorization
// in the `vapid` and `WebPush` forms) and, building the APNs and FCM payloads, extended Z85.
// Every payload it builds must be JSON, the APNs one exactly as long as `size` says, and Z85
// must round-trip both ways.

enum Fixture {
    /// The P-256 key that signed the seeds' VAPID tokens (scripts/fuzz-seeds.py).
    static let vapidKey = hexBytes(
        "04fa931e67e15ea2c76298c566fbaf0c699a954ab6c648c785df10c8a0f536f8222b52288ea505f05b6db3e3e606bcc976940c4c27dca77f4f785a407dde994be2"
    )
    static let verifier = VAPIDVerifier(keys: [vapidKey], audience: "https://push.example.net")
    /// As a VAPID token's `exp` is compared with it: a fixed time keeps runs repeatable.
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let maximumTTL = 2_419_200
}

func paths(_ path: String) {
    let relay = try? RelayPath.parse(path)
    let fcm = try? FCMRelayPath.parse(path)
    if let relay { require(relay.token == relay.token.lowercased(), "a relay token is not lower-cased") }
    _ = fcm
}

func message(_ text: HTTPMessageText, extra: String?) {
    guard let message = try? RelayMessage(headers: text.headers, body: text.body, maximumTTL: Fixture.maximumTTL) else { return }
    require((0...Fixture.maximumTTL).contains(message.ttl), "TTL \(message.ttl) is out of range")
    let payload = RelayPayload.encode(message, extra: extra)
    require(isJSON(payload), "an APNs relay payload is not JSON: \(String(decoding: payload, as: UTF8.self))")
    let size = RelayPayload.size(bodyCount: message.body.count, encoding: message.encoding, extra: extra)
    require(size == payload.count, "RelayPayload.size says \(size), the payload is \(payload.count) bytes")
    require(isJSON(RelayPayload.reduced(extra: extra)), "a reduced APNs relay payload is not JSON")
    require(isJSON(FCMRelayPayload.encode(message, extra: extra)), "an FCM relay message is not JSON")
    require(isJSON(FCMRelayPayload.reduced(message, extra: extra)), "a reduced FCM relay message is not JSON")
}

func vapid(_ headers: [String: [String]]) {
    // Only a token for the allowed key reaches JWTKit; the seeds hold one.
    guard headers["authorization"] != nil else { return }
    _ = runBlocking { try? await Fixture.verifier.verify(headers: headers, now: Fixture.now) }
}

func z85(_ body: [UInt8]) {
    let text = String(decoding: body, as: UTF8.self)
    if let decoded = try? Z85Extended.decode(text) {
        require(Z85Extended.encode(decoded) == text, "extended Z85 does not re-encode to the text it decoded")
    }
    let encoded = Z85Extended.encode(body)
    require(encoded.utf8.count == Z85Extended.encodedLength(of: body.count), "encodedLength disagrees with encode")
    require((try? Z85Extended.decode(encoded)) == body, "extended Z85 does not decode what it encoded")
}

runFuzzer { buffer in
    let text = HTTPMessageText(Array(buffer))
    paths(text.firstLine)
    let extra = (try? RelayPath.parse(text.firstLine))?.extra
    message(text, extra: extra)
    vapid(text.headers)
    z85(text.body)
}
