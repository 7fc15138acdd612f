import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import HeraldSilent

/// Every refusal's HTTP status, the message the app or operator reads, and the answer it renders.
@Suite struct SilentErrorTests {
    static let mediaTypes = "send application/x-protobuf, application/protobuf or application/json"

    @Test(arguments: [
        (SilentError.malformed("deviceId is missing"), HTTPResponse.Status.badRequest),
        (SilentError.notServed("no FCM credentials"), .badRequest),
        (SilentError.unsupportedMediaType("text/plain"), .unsupportedMediaType),
        (SilentError.unsupportedMediaType(nil), .unsupportedMediaType),
        (SilentError.unknownService("news"), .notFound),
        (SilentError.unknownForwardedService, .notFound),
        (SilentError.unknownBroadcast("b"), .notFound),
        (SilentError.unavailable("no owner"), .serviceUnavailable),
        (SilentError.relayed(409, #"{"error":"x"}"#), .conflict),
        (SilentError.relayed(502, ""), .badGateway),
    ] as [(SilentError, HTTPResponse.Status)])
    func eachRefusalHasItsStatus(error: SilentError, status: HTTPResponse.Status) {
        #expect(error.status == status)
    }

    @Test func descriptionsSayWhatIsWrongAndCutCallersText() {
        #expect(SilentError.malformed("deviceId is missing").description == "deviceId is missing")
        #expect(SilentError.notServed("no FCM").description == "no FCM")
        #expect(SilentError.unavailable("later").description == "later")
        #expect(SilentError.relayed(409, #"{"error":"x"}"#).description == #"{"error":"x"}"#, "the owner's body, as it gave it")
        #expect(SilentError.unsupportedMediaType(nil).description == "Content-Type is missing: \(Self.mediaTypes)")
        #expect(SilentError.unsupportedMediaType("text/plain").description == "Content-Type 'text/plain': \(Self.mediaTypes)")
        let long = String(repeating: "x", count: 500)
        let sixty = String(repeating: "x", count: 60)
        #expect(SilentError.unsupportedMediaType(long).description == "Content-Type '\(sixty)': \(Self.mediaTypes)")
        #expect(SilentError.unknownService("news").description == "no silent-sync service 'news' is configured")
        #expect(SilentError.unknownService(long).description == "no silent-sync service '\(sixty)' is configured")
        #expect(SilentError.unknownBroadcast(long).description == "no broadcast '\(String(repeating: "x", count: 40))'")
        let unavailable = SilentError.ownerUnavailable("no node owns partition 3")
        #expect(unavailable == SilentError.unavailable("the registration's owner cannot take it now: no node owns partition 3"))
        #expect(unavailable.status == HTTPResponse.Status.serviceUnavailable)
    }

    @Test func aThrownRefusalRendersItsOwnAnswer() async throws {
        let refusals: [String: SilentError] = [
            "malformed": .malformed(#"deviceId is "missing""#),
            "unavailable": .unavailable("later"),
            "relayed": .relayed(409, #"{"error":"the owner's own words"}"#),
        ]
        let router = Router()
        router.get("/refuse/:name") { _, context -> Response in
            throw refusals[context.parameters.get("name") ?? ""] ?? SilentError.unknownForwardedService
        }
        try await Application(router: router).test(.router) { client in
            let malformed = try await client.execute(uri: "/refuse/malformed", method: .get)
            #expect(malformed.status == HTTPResponse.Status.badRequest)
            #expect(malformed.headers[.contentType] == "application/json")
            #expect(String(buffer: malformed.body) == #"{"error":"deviceId is \"missing\""}"#)
            #expect(malformed.headers[.retryAfter] == nil)
            let unavailable = try await client.execute(uri: "/refuse/unavailable", method: .get)
            #expect(unavailable.status == HTTPResponse.Status.serviceUnavailable)
            #expect(unavailable.headers[.retryAfter] == "5", "the app registers again later")
            #expect(String(buffer: unavailable.body) == #"{"error":"later"}"#)
            let relayed = try await client.execute(uri: "/refuse/relayed", method: .get)
            #expect(relayed.status == HTTPResponse.Status.conflict)
            #expect(String(buffer: relayed.body) == #"{"error":"the owner's own words"}"#, "passed on as the owner gave it, not wrapped again")
        }
    }
}
