import Foundation
import Testing

@testable import HeraldDelivery

/// A feedback URL's own user and password reach the receiver as Basic authentication (a client
/// does not send them by itself); a bearer token, when set, is sent instead.
struct FeedbackCredentialsTests {
    @Test func userInformationInTheURLIsSentAsBasicAuthentication() {
        let (url, authorization) = FeedbackWebhook.credentials(of: .init(url: "https://ops:p%40ss@feedback.example/hook?x=1"))
        #expect(url == "https://feedback.example/hook?x=1")
        #expect(authorization == "Basic " + Data("ops:p@ss".utf8).base64EncodedString())
    }

    @Test func aBearerTokenWinsAndAPlainURLIsKept() {
        let token = FeedbackWebhook.credentials(of: .init(url: "https://ops:pass@feedback.example/hook", bearerToken: "t0k"))
        #expect(token.url == "https://feedback.example/hook")
        #expect(token.authorization == "Bearer t0k")
        let plain = FeedbackWebhook.credentials(of: .init(url: "http://127.0.0.1:9000/feedback"))
        #expect(plain.url == "http://127.0.0.1:9000/feedback")
        #expect(plain.authorization == nil)
    }
}
