@testable import HeraldDelivery
import Testing

/// Header blocks leave without NIOHTTP2's validation; every value that is not checked by
/// APNSRequest or FCMRequest is checked where it comes from.
@Suite struct UncheckedHeaderSourcesTests {
    @Test(arguments: ["ya29.a0AfB_byC-x~+/=", "t"])
    func bearerTokensOfVisibleASCIIAreTaken(token: String) {
        #expect(FCMTokenManager.isBearerToken(token))
    }

    @Test(arguments: ["", "ya29 space", "line\r\nbreak", "nul\u{0}", "é", String(repeating: "a", count: 8193)])
    func otherAccessTokensAreRefused(token: String) {
        #expect(!FCMTokenManager.isBearerToken(token))
    }

    @Test(arguments: ["my-project-123", "123456789012", "example.com:legacy-id"])
    func projectIDsAndNumbersAreTaken(id: String) {
        #expect(FCMProvider.isValidProjectID(id))
    }

    @Test(arguments: ["", "a/../b", "a b", "p?x=1", "p\r\n", String(repeating: "a", count: 101)])
    func projectIDsThatWouldBendThePathAreRefused(id: String) {
        #expect(!FCMProvider.isValidProjectID(id))
    }

    @Test(arguments: ["", "api push.apple.com", "host\r\nx: y", "ünicode.example"])
    func anAuthorityThatIsNotAHostNameIsRefused(authority: String) {
        #expect(throws: HTTP2ConnectionError.self) {
            try HTTP2Connection.Configuration(host: "127.0.0.1", port: 443, authority: authority)
        }
    }

    @Test func hostNamesAndAddressesAreAuthorities() throws {
        #expect(try HTTP2Connection.Configuration(host: "api.push.apple.com", port: 443).authority == "api.push.apple.com")
        #expect(try HTTP2Connection.Configuration(host: "127.0.0.1", port: 8443, authority: "[::1]:8443").authority == "[::1]:8443")
    }
}
