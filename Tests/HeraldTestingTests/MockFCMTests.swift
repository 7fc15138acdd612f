import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldTesting
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization
import Testing
import _CryptoExtras

/// The strict mock FCM as a plain HTTP client sees it: AsyncHTTPClient over TLS (HTTP/2 by ALPN)
/// trusting the mock's certificate, JWTs signed here with the test service account's key.
@Suite(.timeLimit(.minutes(2))) struct MockFCMTests {
    // MARK: Transport

    @Test func aClientWithoutHTTP2IsServedOverHTTP1AndRecordedSo() async throws {
        try await MockFCMHarness.with { harness in
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(harness.mock.certificatePEM.utf8), format: .pem)])
            var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
            configuration.httpVersion = .http1Only
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            do {
                let accessToken = try await harness.accessToken()
                var request = HTTPClientRequest(url: harness.mock.baseURL + "/v1/projects/herald-test/messages:send")
                request.method = .POST
                request.headers.add(name: "content-type", value: "application/json")
                request.headers.add(name: "authorization", value: "Bearer \(accessToken)")
                request.body = .bytes(ByteBuffer(string: #"{"message":{"token":"dGVzdA:APA91b-x_y"}}"#))
                let response = try await client.execute(request, timeout: .init(TestTime.bound(.seconds(30))))
                #expect(response.status == .ok)
                #expect(response.version == .http1_1)
                _ = try await response.body.collect(upTo: 1 << 20)
                #expect(harness.mock.accepted.map(\.overHTTP2) == [false])
            } catch {
                try? await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
    }

    @Test func otherPathsAndMethodsAreABare404AndOversizedBodiesA413() async throws {
        try await MockFCMHarness.with { harness in
            for (method, path) in [(HTTPMethod.POST, "/v1/projects/herald-test/messages:batchSend"), (.GET, "/v1/projects/herald-test/messages:send"), (.POST, "/fcm/send"), (.POST, "/v1/projects/a/b/messages:send")] {
                var request = HTTPClientRequest(url: harness.mock.baseURL + path)
                request.method = method
                let response = try await harness.client.execute(request, timeout: .init(TestTime.bound(.seconds(30))))
                #expect(response.status == .notFound, "\(method) \(path)")
                #expect(response.headers["content-type"].isEmpty)
                #expect(try await response.body.collect(upTo: 1 << 20).readableBytes == 0)
            }
            // Segments as a router matches them: doubled and trailing slashes and a query do not
            // matter (no access token: the send endpoint's bare 401).
            #expect(try await harness.post("//v1/projects/herald-test/messages:send/?x=1", body: "{}", contentType: "application/json").status == 401)
            let oversized = String(repeating: "x", count: (1 << 20) + 1)
            #expect(try await harness.send(oversized, accessToken: "t").status == 413)
            #expect(harness.mock.sendRequestCount == 1, "only the 401 reached the send endpoint's checks")
        }
    }

    // MARK: Token endpoint

    @Test func validAssertionIsExchangedAndItsTokenSends() async throws {
        try await MockFCMHarness.with { harness in
            let grant = try await harness.exchange(harness.assertion())
            #expect(grant.status == 200)
            #expect(grant.body?["token_type"]?.string == "Bearer")
            #expect(grant.body?["expires_in"]?.number == 3599)
            let accessToken = try #require(grant.body?["access_token"]?.string)
            #expect(!accessToken.isEmpty)
            #expect(harness.mock.accessTokensIssued == 1)

            let reply = try await harness.send(
                #"{"message":{"token":"dGVzdA:APA91b-x_y","data":{"kind":"chat","id":"7"},"android":{"priority":"HIGH","ttl":"3600s","collapse_key":"chat"}}}"#,
                accessToken: accessToken
            )
            #expect(reply.status == 200)
            #expect(reply.version == .http2)
            let name = try #require(reply.body?["name"]?.string)
            #expect(name.hasPrefix("projects/herald-test/messages/0:"))
            let accepted = harness.mock.accepted
            try #require(accepted.count == 1)
            #expect(accepted[0].name == name)
            #expect(accepted[0].project == "herald-test")
            #expect(accepted[0].target == .token("dGVzdA:APA91b-x_y"))
            #expect(accepted[0].data == ["kind": "chat", "id": "7"])
            #expect(accepted[0].androidPriority == "HIGH")
            #expect(accepted[0].androidTTL == "3600s")
            #expect(accepted[0].androidCollapseKey == "chat")
            #expect(accepted[0].overHTTP2)
            let message = try JSONDecoder().decode(JSONValue.self, from: accepted[0].message)
            #expect(message["data"]?["kind"]?.string == "chat")
            #expect(harness.mock.sendRequestCount == 1)
        }
    }

    @Test func assertionSignedByAnotherKeyIsAnInvalidGrant() async throws {
        try await MockFCMHarness.with { harness in
            let stranger = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let reply = try await harness.exchange(harness.assertion(key: stranger))
            #expect(reply.status == 400)
            #expect(reply.body?["error"]?.string == "invalid_grant")
            #expect(reply.body?["error_description"]?.string?.contains("Signature") == true)
            #expect(harness.mock.accessTokensIssued == 0)
        }
    }

    @Test(arguments: ClaimFault.allCases)
    func faultyAssertionIsAnInvalidGrant(_ fault: ClaimFault) async throws {
        try await MockFCMHarness.with { harness in
            var header = harness.header()
            var claims = harness.claims()
            fault.apply(header: &header, claims: &claims)
            let reply = try await harness.exchange(harness.assertion(header: header, claims: claims))
            #expect(reply.status == 400)
            #expect(reply.body?["error"]?.string == "invalid_grant")
            let description = try #require(reply.body?["error_description"]?.string)
            #expect(description.contains(fault.expectedDescription), "\(description)")
            #expect(harness.mock.accessTokensIssued == 0)
        }
    }

    @Test func googleAudienceIsAcceptedAsWellAsTheMocksOwn() async throws {
        try await MockFCMHarness.with { harness in
            var claims = harness.claims()
            claims.set("aud", .string("https://oauth2.googleapis.com/token"))
            let reply = try await harness.exchange(harness.assertion(claims: claims))
            #expect(reply.status == 200)
            claims.set("aud", .string(harness.mock.tokenURI))
            claims.set("scope", .string("openid https://www.googleapis.com/auth/cloud-platform"))
            #expect(try await harness.exchange(harness.assertion(claims: claims)).status == 200)
            #expect(harness.mock.accessTokensIssued == 2)
        }
    }

    @Test func malformedTokenRequestsAreRefused() async throws {
        try await MockFCMHarness.with { harness in
            let assertion = try harness.assertion()
            let grant = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"
            let asJSON = try await harness.post(
                "/token",
                body: #"{"grant_type":"urn:ietf:params:oauth:grant-type:jwt-bearer","assertion":"\#(assertion)"}"#,
                contentType: "application/json"
            )
            #expect(asJSON.status == 400)
            #expect(asJSON.body?["error"]?.string == "invalid_request")
            let noAssertion = try await harness.post("/token", body: grant, contentType: "application/x-www-form-urlencoded")
            #expect(noAssertion.body?["error"]?.string == "invalid_request")
            #expect(noAssertion.body?["error_description"]?.string?.contains("assertion") == true)
            let wrongGrant = try await harness.post(
                "/token",
                body: "grant_type=client_credentials&assertion=\(assertion)",
                contentType: "application/x-www-form-urlencoded"
            )
            #expect(wrongGrant.status == 400)
            #expect(wrongGrant.body?["error"]?.string == "unsupported_grant_type")
            let twice = try await harness.post(
                "/token",
                body: "\(grant)&assertion=\(assertion)&assertion=\(assertion)",
                contentType: "application/x-www-form-urlencoded"
            )
            #expect(twice.body?["error"]?.string == "invalid_request")
            #expect(harness.mock.accessTokensIssued == 0)
            #expect(harness.mock.tokenRequestCount == 4)
        }
    }

    @Test func accessTokenStopsWorkingWhenItsLifetimeIsOver() async throws {
        try await MockFCMHarness.with { harness in
            harness.mock.setAccessTokenLifetime(seconds: 30)
            let grant = try await harness.exchange(harness.assertion())
            #expect(grant.body?["expires_in"]?.number == 30)
            let accessToken = try #require(grant.body?["access_token"]?.string)
            #expect(try await harness.send(MockFCMHarness.validMessage, accessToken: accessToken).status == 200)
            harness.clock.advance(seconds: 31)
            let late = try await harness.send(MockFCMHarness.validMessage, accessToken: accessToken)
            #expect(late.status == 401)
            #expect(late.statusName == "UNAUTHENTICATED")
            #expect(late.details == nil)
        }
    }

    // MARK: Credentials and project

    @Test func sendWithoutOrWithUnknownAccessTokenIsABare401() async throws {
        try await MockFCMHarness.with { harness in
            for accessToken in [nil, "ya29.not-issued-by-this-mock"] {
                let reply = try await harness.send(MockFCMHarness.validMessage, accessToken: accessToken)
                #expect(reply.status == 401)
                #expect(reply.body?["error"]?["code"]?.number == 401)
                #expect(reply.statusName == "UNAUTHENTICATED")
                #expect(reply.body?["error"]?["message"]?.string?.contains("invalid authentication credentials") == true)
                // No details at all: the one 401 that means "get a new access token".
                #expect(reply.details == nil)
                #expect(reply.errorCode == nil)
            }
            #expect(harness.mock.accepted.isEmpty)
        }
    }

    @Test func revokedAccessTokenGetsABare401UntilANewOneIsFetched() async throws {
        try await MockFCMHarness.with { harness in
            let first = try await harness.accessToken()
            #expect(try await harness.send(MockFCMHarness.validMessage, accessToken: first).status == 200)
            harness.mock.revokeAccessTokens()
            let revoked = try await harness.send(MockFCMHarness.validMessage, accessToken: first)
            #expect(revoked.status == 401)
            #expect(revoked.statusName == "UNAUTHENTICATED")
            #expect(revoked.details == nil)
            let second = try await harness.accessToken()
            #expect(second != first)
            #expect(try await harness.send(MockFCMHarness.validMessage, accessToken: second).status == 200)
            #expect(harness.mock.accepted.count == 2)
        }
    }

    @Test func projectNumberIsAcceptedAndAnotherProjectIsDenied() async throws {
        try await MockFCMHarness.with(configure: { $0.projectNumber = "448358789135" }) { harness in
            let accessToken = try await harness.accessToken()
            let byNumber = try await harness.send(MockFCMHarness.validMessage, accessToken: accessToken, project: "448358789135")
            #expect(byNumber.status == 200)
            #expect(byNumber.body?["name"]?.string?.hasPrefix("projects/448358789135/messages/") == true)
            let other = try await harness.send(MockFCMHarness.validMessage, accessToken: accessToken, project: "someone-else")
            #expect(other.status == 403)
            #expect(other.statusName == "PERMISSION_DENIED")
            #expect(other.errorCode == nil)
            #expect(harness.mock.accepted.map(\.project) == ["448358789135"])
        }
    }

    // MARK: Message checks

    @Test func numberDataValueIsAFieldViolation() async throws {
        try await MockFCMHarness.with { harness in
            let reply = try await harness.send(#"{"message":{"token":"abc","data":{"badge":1}}}"#)
            #expect(reply.status == 400)
            #expect(reply.body?["error"]?["code"]?.number == 400)
            #expect(reply.statusName == "INVALID_ARGUMENT")
            #expect(reply.errorCode == "INVALID_ARGUMENT")
            #expect(reply.fieldViolations.map(\.field) == ["message.data[0].value"])
            #expect(reply.fieldViolations.first?.description.contains("badge") == true)
            #expect(reply.details?.first?["@type"]?.string == "type.googleapis.com/google.rpc.BadRequest")
            #expect(harness.mock.accepted.isEmpty)
        }
    }

    @Test(arguments: ["from", "message_type", "google.sent_time", "gcm.notification.title"])
    func reservedDataKeyIsRefused(_ key: String) async throws {
        try await MockFCMHarness.with { harness in
            let top = try await harness.send(#"{"message":{"token":"abc","data":{"\#(key)":"x"}}}"#)
            #expect(top.status == 400)
            #expect(top.errorCode == "INVALID_ARGUMENT")
            #expect(top.fieldViolations.map(\.field) == ["message.data[0].key"])
            let android = try await harness.send(#"{"message":{"token":"abc","android":{"data":{"\#(key)":"x"}}}}"#)
            #expect(android.status == 400)
            #expect(android.fieldViolations.map(\.field) == ["message.android.data[0].key"])
            #expect(harness.mock.accepted.isEmpty)
        }
    }

    @Test func exactlyOneTargetIsRequired() async throws {
        try await MockFCMHarness.with { harness in
            let two = try await harness.send(#"{"message":{"token":"abc","topic":"news"}}"#)
            #expect(two.status == 400)
            #expect(two.fieldViolations.map(\.field) == ["message"])
            #expect(two.fieldViolations.first?.description.contains("token and topic") == true)
            let none = try await harness.send(#"{"message":{"data":{"a":"b"}}}"#)
            #expect(none.status == 400)
            #expect(none.errorCode == "INVALID_ARGUMENT")
            #expect(try await harness.send(#"{"message":{"topic":"news"}}"#).status == 200)
            #expect(try await harness.send(#"{"message":{"condition":"'a' in topics && 'b' in topics"}}"#).status == 200)
            #expect(harness.mock.accepted.map(\.target) == [.topic("news"), .condition("'a' in topics && 'b' in topics")])
        }
    }

    @Test(arguments: [#""3600""#, #""1.5""#, #""3600ms""#, #""1.1234567890s""#, #""-5s""#, #""2419201s""#, #""2419200.5s""#, "3600"])
    func badTTLIsRefused(_ ttl: String) async throws {
        try await MockFCMHarness.with { harness in
            let reply = try await harness.send(#"{"message":{"token":"abc","android":{"ttl":\#(ttl)}}}"#)
            #expect(reply.status == 400)
            #expect(reply.errorCode == "INVALID_ARGUMENT")
            #expect(reply.fieldViolations.map(\.field) == ["message.android.ttl"])
        }
    }

    @Test func wellFormedTTLsAndPrioritiesInEitherCaseAreAccepted() async throws {
        try await MockFCMHarness.with { harness in
            for (ttl, priority) in [("0s", "normal"), ("3.5s", "high"), ("2419200s", "NORMAL"), ("2419200.000000000s", "HIGH")] {
                let reply = try await harness.send(#"{"message":{"token":"abc","android":{"ttl":"\#(ttl)","priority":"\#(priority)"}}}"#)
                #expect(reply.status == 200, "ttl \(ttl), priority \(priority)")
            }
            let urgent = try await harness.send(#"{"message":{"token":"abc","android":{"priority":"urgent"}}}"#)
            #expect(urgent.status == 400)
            #expect(urgent.fieldViolations.map(\.field) == ["message.android.priority"])
            #expect(harness.mock.accepted.compactMap(\.androidPriority) == ["normal", "high", "NORMAL", "HIGH"])
        }
    }

    @Test func lowerCamelCaseNamesAreAcceptedAndUnknownNamesRefused() async throws {
        try await MockFCMHarness.with { harness in
            let camel = try await harness.send(
                #"{"validateOnly":false,"message":{"token":"abc","fcmOptions":{"analyticsLabel":"l"},"android":{"collapseKey":"c","directBootOk":true,"restrictedPackageName":"im.herald"}}}"#
            )
            #expect(camel.status == 200)
            #expect(harness.mock.accepted.first?.androidCollapseKey == "c")
            let unknown = try await harness.send(#"{"message":{"token":"abc","priority":"high"}}"#)
            #expect(unknown.status == 400)
            #expect(unknown.fieldViolations.first?.description.contains("Unknown name \"priority\"") == true)
            let wrongType = try await harness.send(#"{"message":{"token":"abc","android":{"direct_boot_ok":"yes"}}}"#)
            #expect(wrongType.fieldViolations.map(\.field) == ["message.android.direct_boot_ok"])
            #expect(harness.mock.accepted.count == 1)
        }
    }

    @Test func oversizedMessagesAreRefusedWithTheTopicLimitLower() async throws {
        try await MockFCMHarness.with { harness in
            func message(_ target: String, dataBytes: Int) -> String {
                #"{"message":{\#(target),"data":{"blob":"\#(String(repeating: "x", count: dataBytes))"}}}"#
            }
            let bigToken = try await harness.send(message(#""token":"abc""#, dataBytes: 4100))
            #expect(bigToken.status == 400)
            #expect(bigToken.fieldViolations.map(\.field) == ["message"])
            #expect(bigToken.fieldViolations.first?.description.contains("too big") == true)
            #expect(try await harness.send(message(#""token":"abc""#, dataBytes: 3000)).status == 200)
            let bigTopic = try await harness.send(message(#""topic":"news""#, dataBytes: 3000))
            #expect(bigTopic.status == 400)
            #expect(bigTopic.errorCode == "INVALID_ARGUMENT")
            #expect(try await harness.send(message(#""topic":"news""#, dataBytes: 1900)).status == 200)
            #expect(harness.mock.accepted.count == 2)
        }
    }

    @Test func malformedDeviceTokensAreRefused() async throws {
        try await MockFCMHarness.with { harness in
            for token in ["", "has space", "caf\u{E9}", "a/b", String(repeating: "a", count: 4097)] {
                let reply = try await harness.send(#"{"message":{"token":"\#(token)"}}"#)
                #expect(reply.status == 400, "token \(token.prefix(20))")
                #expect(reply.errorCode == "INVALID_ARGUMENT")
                #expect(reply.body?["error"]?["message"]?.string?.hasPrefix("The registration token is not a valid FCM registration token") == true)
                #expect(reply.fieldViolations.map(\.field) == ["message.token"])
            }
            #expect(try await harness.send(#"{"message":{"token":"\#(String(repeating: "a", count: 4096))"}}"#).status == 200)
        }
    }

    @Test func nonJSONBodiesAreRefused() async throws {
        try await MockFCMHarness.with { harness in
            let accessToken = try await harness.accessToken()
            let form = try await harness.post("/v1/projects/herald-test/messages:send", body: "message=x", contentType: "application/x-www-form-urlencoded", accessToken: accessToken)
            #expect(form.status == 400)
            #expect(form.statusName == "INVALID_ARGUMENT")
            let broken = try await harness.send(#"{"message":{"token":"abc""#, accessToken: accessToken)
            #expect(broken.status == 400)
            #expect(broken.fieldViolations.first?.description.contains("Invalid JSON payload") == true)
            let array = try await harness.send(#"[{"message":{"token":"abc"}}]"#, accessToken: accessToken)
            #expect(array.status == 400)
            #expect(harness.mock.accepted.isEmpty)
        }
    }

    // MARK: Scripted answers

    @Test(arguments: ScriptedCase.all)
    func scriptedTokenAnswersWithFCMsEnvelope(_ scripted: ScriptedCase) async throws {
        try await MockFCMHarness.with { harness in
            harness.mock.script(token: "doomed", scripted.state)
            let accessToken = try await harness.accessToken()
            let reply = try await harness.send(#"{"message":{"token":"doomed"}}"#, accessToken: accessToken)
            #expect(reply.status == scripted.httpStatus)
            #expect(reply.body?["error"]?["code"]?.number == Double(scripted.httpStatus))
            #expect(reply.statusName == scripted.statusName)
            #expect(reply.errorCode == scripted.errorCode)
            #expect(reply.headers.first(name: "retry-after") == scripted.retryAfter)
            #expect(reply.body?["error"]?["message"]?.string?.isEmpty == false)
            // Other tokens are untouched, and clearing the script restores the token.
            #expect(try await harness.send(#"{"message":{"token":"fine"}}"#, accessToken: accessToken).status == 200)
            harness.mock.script(token: "doomed", nil)
            #expect(try await harness.send(#"{"message":{"token":"doomed"}}"#, accessToken: accessToken).status == 200)
            #expect(harness.mock.accepted.map(\.target) == [.token("fine"), .token("doomed")])
        }
    }

    @Test func quotaExceededCarriesAQuotaFailureDetail() async throws {
        try await MockFCMHarness.with { harness in
            harness.mock.script(token: "busy", .quotaExceeded(retryAfter: nil))
            let reply = try await harness.send(#"{"message":{"token":"busy"}}"#)
            #expect(reply.status == 429)
            #expect(reply.headers.first(name: "retry-after") == nil)
            #expect(reply.details?.contains { $0["@type"]?.string == "type.googleapis.com/google.rpc.QuotaFailure" } == true)
        }
    }

    @Test func failNextFailsThatManyValidSendsOnly() async throws {
        try await MockFCMHarness.with { harness in
            harness.mock.failNext(2, .unavailable(retryAfter: "1"))
            let accessToken = try await harness.accessToken()
            // An invalid send is answered for what it is and does not use up a failure.
            #expect(try await harness.send(#"{"message":{"token":"abc","data":{"n":1}}}"#, accessToken: accessToken).status == 400)
            let first = try await harness.send(MockFCMHarness.validMessage, accessToken: accessToken)
            #expect(first.status == 503)
            #expect(first.errorCode == "UNAVAILABLE")
            #expect(first.headers.first(name: "retry-after") == "1")
            #expect(try await harness.send(MockFCMHarness.validMessage, accessToken: accessToken).status == 503)
            #expect(try await harness.send(MockFCMHarness.validMessage, accessToken: accessToken).status == 200)
            #expect(harness.mock.accepted.count == 1)
            #expect(harness.mock.sendRequestCount == 4)
        }
    }

    @Test func validateOnlyAnswersLikeASendButRecordsNothing() async throws {
        try await MockFCMHarness.with { harness in
            let reply = try await harness.send(#"{"validate_only":true,"message":{"token":"abc","data":{"a":"b"}}}"#)
            #expect(reply.status == 200)
            #expect(reply.body?["name"]?.string?.hasPrefix("projects/herald-test/messages/") == true)
            #expect(harness.mock.accepted.isEmpty)
            #expect(harness.mock.acceptedCount == 0)
            let invalid = try await harness.send(#"{"validate_only":true,"message":{"token":"abc","data":{"a":true}}}"#)
            #expect(invalid.status == 400)
            let notBool = try await harness.send(#"{"validate_only":"yes","message":{"token":"abc"}}"#)
            #expect(notBool.fieldViolations.map(\.field) == ["validate_only"])
            #expect(harness.mock.sendRequestCount == 3)
        }
    }

    @Test func latencyDelaysSendAnswers() async throws {
        try await MockFCMHarness.with { harness in
            let accessToken = try await harness.accessToken()
            harness.mock.setLatency(.milliseconds(300))
            let clock = ContinuousClock()
            let start = clock.now
            #expect(try await harness.send(MockFCMHarness.validMessage, accessToken: accessToken).status == 200)
            #expect(clock.now - start >= .milliseconds(300))
        }
    }

    // MARK: Service account and lifecycle

    @Test func serviceAccountJSONAloneIsEnoughToGetAToken() async throws {
        try await MockFCMHarness.with { harness in
            let file = try JSONDecoder().decode(JSONValue.self, from: Data(harness.account.json(tokenURI: harness.mock.tokenURI).utf8))
            #expect(file["type"]?.string == "service_account")
            #expect(file["project_id"]?.string == "herald-test")
            #expect(file["token_uri"]?.string == harness.mock.tokenURI)
            #expect(file["private_key_id"]?.string?.count == 40)
            for field in ["client_id", "auth_uri", "auth_provider_x509_cert_url", "client_x509_cert_url"] {
                #expect(file[field]?.string?.isEmpty == false, "\(field)")
            }
            let pem = try #require(file["private_key"]?.string)
            #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
            let key = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
            var header = harness.header()
            header.set("kid", .string(try #require(file["private_key_id"]?.string)))
            var claims = harness.claims()
            claims.set("iss", .string(try #require(file["client_email"]?.string)))
            claims.set("aud", .string(try #require(file["token_uri"]?.string)))
            let reply = try await harness.exchange(harness.assertion(header: header, claims: claims, key: key))
            #expect(reply.status == 200)
        }
    }

    @Test func droppedConnectionsAreCountedAndClientsReconnect() async throws {
        try await MockFCMHarness.with { harness in
            #expect(try await harness.send(MockFCMHarness.validMessage).status == 200)
            #expect(harness.mock.openConnections == 1)
            harness.mock.dropConnections()
            try await waitUntil("the mock learns the connection closed", observing: { harness.mock.openConnections }) { $0 == 0 }
            // The client may not have seen the close yet and lose one request on the old
            // connection; what matters is that the mock takes a new one.
            var reply: MockFCMHarness.Reply?
            for _ in 0..<3 where reply == nil {
                reply = try? await harness.send(MockFCMHarness.validMessage)
            }
            #expect(reply?.status == 200)
            #expect(harness.mock.openConnections == 1)
            #expect(harness.mock.accepted.count == 2)
        }
    }

    @Test func shutdownDoesNotWaitForAClientThatKeepsItsConnection() async throws {
        let account = try MockFCMHarness.account.get()
        let mock = try await MockFCM.start(configuration: account.mockConfiguration())
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(mock.certificatePEM.utf8), format: .pem)])
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
        var request = HTTPClientRequest(url: mock.tokenURI)
        request.method = .POST
        let response = try await client.execute(request, timeout: .init(TestTime.bound(.seconds(30))))
        _ = try await response.body.collect(upTo: 1 << 16)
        #expect(response.status.code == 400)
        #expect(mock.openConnections == 1)
        // The client's pool keeps the connection; the mock must close it rather than wait.
        await mock.shutdown()
        #expect(mock.openConnections == 0)
        try await client.shutdown()
    }

    @Test func shutdownTwiceIsSafeAndClosesThePort() async throws {
        let account = try MockFCMHarness.account.get()
        let mock = try await MockFCM.start(configuration: account.mockConfiguration())
        let port = mock.port
        #expect(port > 0)
        await mock.shutdown()
        await mock.shutdown()
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(certificateVerification: .none))
        var request = HTTPClientRequest(url: "https://127.0.0.1:\(port)/token")
        request.method = .POST
        await #expect(throws: (any Error).self) { _ = try await client.execute(request, timeout: .seconds(1)) }
        try await client.shutdown()
    }
}

// MARK: - Cases

enum ClaimFault: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case wrongAudience, wrongScope, wrongIssuer, longerThanAnHour, issuedInTheFuture, expired, numberAsString, wrongKeyID, notRS256

    var testDescription: String { self.rawValue }

    func apply(header: inout [(String, JSONValue)], claims: inout [(String, JSONValue)]) {
        let now = claims.value("iat")?.number ?? 0
        switch self {
        case .wrongAudience: claims.set("aud", .string("https://www.googleapis.com/oauth2/v4/token"))
        case .wrongScope: claims.set("scope", .string("https://www.googleapis.com/auth/userinfo.email"))
        case .wrongIssuer: claims.set("iss", .string("intruder@elsewhere.iam.gserviceaccount.com"))
        case .longerThanAnHour: claims.set("exp", .number(now + 3601))
        case .issuedInTheFuture:
            claims.set("iat", .number(now + 300))
            claims.set("exp", .number(now + 900))
        case .expired:
            claims.set("iat", .number(now - 4000))
            claims.set("exp", .number(now - 400))
        case .numberAsString: claims.set("iat", .string(String(Int(now))))
        case .wrongKeyID: header.set("kid", .string("0000000000000000000000000000000000000000"))
        case .notRS256: header.set("alg", .string("RS512"))
        }
    }

    var expectedDescription: String {
        switch self {
        case .wrongAudience: "aud"
        case .wrongScope: "scope"
        case .wrongIssuer: "iss"
        case .longerThanAnHour: "at most 3600"
        case .issuedInTheFuture: "in the future"
        case .expired: "exp has passed"
        case .numberAsString: "JSON numbers"
        case .wrongKeyID: "kid"
        case .notRS256: "RS256"
        }
    }
}

struct ScriptedCase: Sendable, CustomTestStringConvertible {
    var state: MockFCM.TokenState
    var httpStatus: Int
    var statusName: String
    var errorCode: String
    var retryAfter: String?

    var testDescription: String { self.errorCode + (self.retryAfter.map { " Retry-After \($0)" } ?? "") }

    static let all: [ScriptedCase] = [
        .init(state: .unregistered, httpStatus: 404, statusName: "NOT_FOUND", errorCode: "UNREGISTERED"),
        .init(state: .senderIDMismatch, httpStatus: 403, statusName: "PERMISSION_DENIED", errorCode: "SENDER_ID_MISMATCH"),
        .init(state: .quotaExceeded(retryAfter: "30"), httpStatus: 429, statusName: "RESOURCE_EXHAUSTED", errorCode: "QUOTA_EXCEEDED", retryAfter: "30"),
        .init(
            state: .unavailable(retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT"),
            httpStatus: 503,
            statusName: "UNAVAILABLE",
            errorCode: "UNAVAILABLE",
            retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT"
        ),
        .init(state: .internal, httpStatus: 500, statusName: "INTERNAL", errorCode: "INTERNAL"),
        .init(state: .thirdPartyAuthError, httpStatus: 401, statusName: "UNAUTHENTICATED", errorCode: "THIRD_PARTY_AUTH_ERROR"),
        .init(
            state: .invalidArgument("The registration token is not a valid FCM registration token"),
            httpStatus: 400,
            statusName: "INVALID_ARGUMENT",
            errorCode: "INVALID_ARGUMENT"
        ),
    ]
}

// MARK: - Harness

/// A mock FCM trusting a fresh service account, on a clock tests move, and an AsyncHTTPClient
/// that trusts the mock's certificate; both always shut down.
struct MockFCMHarness: Sendable {
    static let validMessage = #"{"message":{"token":"abc","data":{"a":"b"}}}"#
    static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    static let badRequestType = "type.googleapis.com/google.rpc.BadRequest"
    /// One account for all tests: an RSA-2048 key takes a while to make in a debug build, and
    /// each test's mock is its own anyway.
    static let account = Result { try TestServiceAccount() }

    final class Clock: Sendable {
        let seconds = Mutex<TimeInterval>(Date().timeIntervalSince1970.rounded())
        var now: Date { Date(timeIntervalSince1970: self.seconds.withLock { $0 }) }
        func advance(seconds delta: TimeInterval) { self.seconds.withLock { $0 += delta } }
    }

    struct FieldViolation: Sendable, Hashable {
        var field: String?
        var description: String
    }

    struct Reply: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var version: HTTPVersion
        var body: JSONValue?

        var statusName: String? { self.body?["error"]?["status"]?.string }
        var details: [JSONValue]? { self.body?["error"]?["details"]?.array }
        var errorCode: String? {
            self.details?.first { $0["@type"]?.string == MockFCMHarness.fcmErrorType }?["errorCode"]?.string
        }
        var fieldViolations: [FieldViolation] {
            let badRequest = self.details?.first { $0["@type"]?.string == MockFCMHarness.badRequestType }
            return (badRequest?["fieldViolations"]?.array ?? []).map {
                FieldViolation(field: $0["field"]?.string, description: $0["description"]?.string ?? "")
            }
        }
    }

    let mock: MockFCM
    let account: TestServiceAccount
    let key: _RSA.Signing.PrivateKey
    let clock: Clock
    let client: HTTPClient
    let cachedAccessToken = Cache()

    /// The access token `send(_:project:)` reuses, fetched on first use.
    final class Cache: Sendable {
        let value = Mutex<String?>(nil)
    }

    static func with(
        configure: (inout MockFCM.Configuration) -> Void = { _ in },
        _ body: (MockFCMHarness) async throws -> Void
    ) async throws {
        let account = try Self.account.get()
        let clock = Clock()
        var configuration = account.mockConfiguration()
        configuration.now = { clock.now }
        configure(&configuration)
        let mock = try await MockFCM.start(configuration: configuration)
        var client: HTTPClient?
        do {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(mock.certificatePEM.utf8), format: .pem)])
            client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls, timeout: .init(connect: .init(TestTime.bound(.seconds(30))))))
            let harness = MockFCMHarness(
                mock: mock,
                account: account,
                key: try _RSA.Signing.PrivateKey(pemRepresentation: account.privateKeyPEM),
                clock: clock,
                client: client!
            )
            try await body(harness)
        } catch {
            try? await client?.shutdown()
            await mock.shutdown()
            throw error
        }
        try await client?.shutdown()
        await mock.shutdown()
    }

    // MARK: Assertions

    func header() -> [(String, JSONValue)] {
        [("alg", .string("RS256")), ("typ", .string("JWT")), ("kid", .string(self.account.privateKeyID))]
    }

    func claims() -> [(String, JSONValue)] {
        let now = self.clock.now.timeIntervalSince1970
        return [
            ("iss", .string(self.account.clientEmail)),
            ("scope", .string("https://www.googleapis.com/auth/firebase.messaging")),
            ("aud", .string(self.mock.tokenURI)),
            ("iat", .number(now)),
            ("exp", .number(now + 3600)),
        ]
    }

    /// A JWT signed RS256 (RSASSA-PKCS1-v1_5, SHA-256) here, independently of any Herald code.
    func assertion(
        header: [(String, JSONValue)]? = nil,
        claims: [(String, JSONValue)]? = nil,
        key: _RSA.Signing.PrivateKey? = nil
    ) throws -> String {
        let input = Self.base64URL(JSONValue.object(header ?? self.header()).bytes) + "."
            + Self.base64URL(JSONValue.object(claims ?? self.claims()).bytes)
        let signature = try (key ?? self.key).signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + Self.base64URL(Array(signature.rawRepresentation))
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    // MARK: Requests

    func exchange(_ assertion: String) async throws -> Reply {
        try await self.post(
            "/token",
            body: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)",
            contentType: "application/x-www-form-urlencoded"
        )
    }

    /// A freshly exchanged access token.
    func accessToken() async throws -> String {
        let reply = try await self.exchange(self.assertion())
        return try #require(reply.body?["access_token"]?.string, "token endpoint answered \(reply.status)")
    }

    /// Sends with one access token fetched on first use.
    func send(_ json: String, project: String = "herald-test") async throws -> Reply {
        let cached = self.cachedAccessToken.value.withLock { $0 }
        let accessToken: String
        if let cached {
            accessToken = cached
        } else {
            accessToken = try await self.accessToken()
            self.cachedAccessToken.value.withLock { $0 = accessToken }
        }
        return try await self.send(json, accessToken: accessToken, project: project)
    }

    func send(_ json: String, accessToken: String?, project: String = "herald-test") async throws -> Reply {
        try await self.post("/v1/projects/\(project)/messages:send", body: json, contentType: "application/json", accessToken: accessToken)
    }

    func post(_ path: String, body: String, contentType: String, accessToken: String? = nil) async throws -> Reply {
        var request = HTTPClientRequest(url: self.mock.baseURL + path)
        request.method = .POST
        request.headers.add(name: "content-type", value: contentType)
        if let accessToken { request.headers.add(name: "authorization", value: "Bearer \(accessToken)") }
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await self.client.execute(request, timeout: .init(TestTime.bound(.seconds(30))))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return Reply(
            status: Int(response.status.code),
            headers: response.headers,
            version: response.version,
            body: try? JSONDecoder().decode(JSONValue.self, from: Data(bytes.readableBytesView))
        )
    }
}

extension JSONValue {
    subscript(key: String) -> JSONValue? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.last { $0.0 == key }?.1
    }

    var string: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    var number: Double? {
        guard case .number(let value) = self else { return nil }
        return value
    }

    var array: [JSONValue]? {
        guard case .array(let values) = self else { return nil }
        return values
    }
}

extension Array where Element == (String, JSONValue) {
    mutating func set(_ key: String, _ value: JSONValue) {
        if let index = self.firstIndex(where: { $0.0 == key }) {
            self[index].1 = value
        } else {
            self.append((key, value))
        }
    }

    func value(_ key: String) -> JSONValue? {
        self.last { $0.0 == key }?.1
    }
}
