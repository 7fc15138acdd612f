import Crypto
import Foundation
import HeraldCore
import HeraldDelivery
import Testing

/// Subscriptions as browsers and UnifiedPush distributors give them, and the ones refused.
@Suite struct WebPushSubscriptionTests {
    static let key = P256.KeyAgreement.PrivateKey().publicKey.x963Representation
    static let p256dh = Base64URL.encode(Self.key)
    static let auth = Base64URL.encode([UInt8](repeating: 7, count: 16))

    static func token(endpoint: String, p256dh: String = Self.p256dh, auth: String = Self.auth) -> String {
        #"{"endpoint":"\#(endpoint)","expirationTime":null,"keys":{"p256dh":"\#(p256dh)","auth":"\#(auth)"}}"#
    }

    @Test func aBrowsersSubscriptionIsRead() throws {
        let subscription = try WebPushSubscription(token: Self.token(endpoint: "https://FCM.googleapis.com/fcm/send/abc:APA91b?x=1"))
        #expect(subscription.endpoint.host == "fcm.googleapis.com")
        #expect(subscription.endpoint.port == 443)
        #expect(subscription.endpoint.target == "/fcm/send/abc:APA91b?x=1")
        #expect(subscription.endpoint.origin == "https://fcm.googleapis.com")
        #expect(subscription.endpoint.authority == "fcm.googleapis.com")
        #expect(subscription.receiverKey == Array(Self.key))
        #expect(subscription.authSecret == [UInt8](repeating: 7, count: 16))
        #expect(try WebPushSubscription(token: subscription.token) == subscription)
    }

    @Test func portsAndAddressLiteralsAreKeptForTheAudience() throws {
        let withPort = try WebPushSubscription.Endpoint("https://push.example.org:8443/up/x")
        #expect(withPort.origin == "https://push.example.org:8443")
        #expect(withPort.authority == "push.example.org:8443")
        let v6 = try WebPushSubscription.Endpoint("https://[2001:DB8::1]:444/p")
        #expect(v6.host == "2001:db8::1")
        #expect(v6.origin == "https://[2001:db8::1]:444")
        #expect(v6.url == "https://[2001:db8::1]:444/p")
    }

    @Test func keysInPaddedOrStandardBase64AreRead() throws {
        let padded = Self.key.base64EncodedString()
        let subscription = try WebPushSubscription(endpoint: "https://updates.push.services.mozilla.com/wpush/v2/x", p256dh: padded, auth: Self.auth + "==")
        #expect(subscription.receiverKey == Array(Self.key))
    }

    @Test(arguments: [
        (#"not json"#, "not a Web Push subscription's JSON"),
        (#"{"keys":{}}"#, "no endpoint"),
        (Self.token(endpoint: "http://push.example.org/x"), "https only"),
        (Self.token(endpoint: "https://user:pw@push.example.org/x"), "user information"),
        (Self.token(endpoint: "https:///x"), "no host"),
        (Self.token(endpoint: "https://push.example.org/x", p256dh: "AAAA"), "keys.p256dh"),
        (Self.token(endpoint: "https://push.example.org/x", p256dh: Base64URL.encode([4] + [UInt8](repeating: 1, count: 64))), "on the curve"),
        (Self.token(endpoint: "https://push.example.org/x", auth: "AAAA"), "16"),
        (Self.token(endpoint: "https://push.example.org/x", auth: "!!"), "keys.auth"),
    ])
    func whatIsNoSubscriptionIsRefusedSayingWhy(token: String, phrase: String) {
        #expect {
            try WebPushSubscription(token: token)
        } throws: { error in
            (error as? WebPushSubscriptionError)?.description.contains(phrase) == true
        }
    }
}
