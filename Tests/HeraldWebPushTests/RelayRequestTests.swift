import Foundation
import HeraldWebPush
import Testing

/// Paths, headers and the APNs payload of the relay, against webpush-relay.md §5 and §8.
@Suite struct RelayRequestTests {
    static let token = String(repeating: "ab", count: 32)
    // RFC 8291 Appendix A and the aesgcm vector of the relay page (§8.1, §8.3).
    static let rfc8291Body = Z85ExtendedTests.base64URL(
        "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
    )
    static let aesgcmBody = Z85ExtendedTests.base64URL("4qwOLFm_mNy0vf1A8f3Bm6B5UD15y3aV_xZy14pixUhcPTIoZKHzq5i3dZ6PzqSMxBI_-VDUZ4jW04M")
    static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    static let dh = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"

    static func message(_ headers: [String: [String]], body: [UInt8] = [1, 2, 3]) throws(RelayError) -> RelayMessage {
        try RelayMessage(headers: headers, body: body, maximumTTL: 2_419_200)
    }

    static let standard: [String: [String]] = ["content-encoding": ["aes128gcm"], "ttl": ["172800"], "urgency": ["normal"]]
    static let legacy: [String: [String]] = [
        "content-encoding": ["aesgcm"], "ttl": ["172800"], "encryption": ["salt=\(salt)"], "crypto-key": ["dh=\(dh);p256ecdsa=BAAA"],
    ]

    // MARK: Paths

    @Test func pathsWithAndWithoutSlashOrExtra() throws {
        #expect(try RelayPath.parse("/relay-to/production/\(Self.token)") == RelayPath(environment: "production", token: Self.token))
        #expect(try RelayPath.parse("/relay-to/production/\(Self.token)/") == RelayPath(environment: "production", token: Self.token))
        let extra = try RelayPath.parse("/relay-to/development/\(Self.token.uppercased())/acct-1/x")
        #expect(extra == RelayPath(environment: "development", token: Self.token, extra: "acct-1/x"))
        #expect(!extra.isProduction)
        // Any environment but production goes to the sandbox, as in both reference relays.
        #expect(try !RelayPath.parse("/relay-to/sandbox/\(Self.token)").isProduction)
    }

    @Test(arguments: ["/relay-to/", "/relay-to/production", "/relay-to/production/", "/relay-to//\(String(repeating: "ab", count: 32))", "/relay/production/abab"])
    func malformedPathsAre404(path: String) {
        do {
            _ = try RelayPath.parse(path)
            Issue.record("\(path) was taken")
        } catch {
            #expect(error.status == 404)
        }
    }

    @Test(arguments: ["xyz", "abc", String(repeating: "ab", count: 101), "ab cd", "ab%20"])
    func badHexTokensAreRefused(token: String) {
        #expect(throws: RelayError.badDeviceToken(String(token.prefix(80)))) { try RelayPath.parse("/relay-to/production/\(token)") }
        #expect(RelayError.badDeviceToken(token).status == 404)
    }

    // MARK: Headers

    @Test func aes128gcmNeedsNoCryptoHeaders() throws {
        let message = try Self.message(Self.standard)
        #expect(message.encoding == .aes128gcm)
        #expect(message.ttl == 172_800)
        #expect(message.urgency == .normal)
        #expect(message.topic == nil)
    }

    @Test func aesgcmTakesTheSendersKeyAndSalt() throws {
        let message = try Self.message(Self.legacy)
        guard case .aesgcm(let key, let salt) = message.encoding else {
            Issue.record("not aesgcm")
            return
        }
        #expect(key == Z85ExtendedTests.base64URL(Self.dh))
        #expect(salt == Z85ExtendedTests.base64URL(Self.salt))
        // Padding, spaces, upper-case names and a second key list are all taken.
        var padded = Self.legacy
        padded["crypto-key"] = ["keyid=p256dh; DH=\(Self.dh)=, p256ecdsa=BAAA"]
        padded["encryption"] = ["keyid=p256dh;salt=\(Self.salt)=="]
        #expect(try Self.message(padded).encoding == message.encoding)
    }

    @Test func wrongAndMissingEncodingsAre415() {
        for encoding in [nil, "gzip", "aes128", ""] as [String?] {
            var headers = Self.standard
            headers["content-encoding"] = encoding.map { [$0] }
            #expect(throws: RelayError.self) { try Self.message(headers) }
            #expect((try? Self.message(headers)) == nil)
            #expect(RelayError.unsupportedEncoding(encoding).status == 415)
        }
        // Content codings are case-insensitive (RFC 9110 §8.4.1), unlike in the reference relays.
        var upper = Self.standard
        upper["content-encoding"] = ["AES128GCM"]
        #expect((try? Self.message(upper))?.encoding == .aes128gcm)
    }

    @Test func aesgcmWithoutOrWithBadCryptoHeadersIs400() {
        var noKey = Self.legacy
        noKey["crypto-key"] = nil
        var noSalt = Self.legacy
        noSalt["encryption"] = ["rs=4096"]
        var standardAlphabet = Self.legacy
        standardAlphabet["encryption"] = ["salt=DGv6ra1nlYgDCS1FRnbz+w"]
        var shortKey = Self.legacy
        shortKey["crypto-key"] = ["dh=BP4z9KsN"]
        var itemWithoutEquals = Self.legacy
        itemWithoutEquals["crypto-key"] = ["p256ecdsa"]
        for headers in [noKey, noSalt, standardAlphabet, shortKey, itemWithoutEquals] {
            do {
                _ = try Self.message(headers)
                Issue.record("accepted \(headers)")
            } catch {
                #expect(error.status == 400, "\(error)")
            }
        }
    }

    @Test func ttlIsRequiredNumericAndClamped() throws {
        var headers = Self.standard
        headers["ttl"] = nil
        #expect(throws: RelayError.missingTTL) { try Self.message(headers) }
        for bad in ["-1", "1.5", "soon", "", "+5"] {
            headers["ttl"] = [bad]
            #expect(throws: RelayError.self, "\(bad)") { try Self.message(headers) }
        }
        headers["ttl"] = ["0"]
        #expect(try Self.message(headers).ttl == 0)
        headers["ttl"] = ["99999999999999999999999"]
        #expect(try Self.message(headers).ttl == 2_419_200)
    }

    @Test func urgencyIsOneOfFourCaseInsensitively() throws {
        var headers = Self.standard
        for (value, urgency) in [("very-low", RelayMessage.Urgency.veryLow), ("LOW", .low), ("high", .high), (" normal ", .normal)] {
            headers["urgency"] = [value]
            #expect(try Self.message(headers).urgency == urgency)
        }
        headers["urgency"] = nil
        #expect(try Self.message(headers).urgency == .normal)
        for bad in ["urgent", "low, high", ""] {
            headers["urgency"] = [bad]
            #expect(throws: RelayError.self, "\(bad)") { try Self.message(headers) }
        }
        headers["urgency"] = ["low", "high"]
        #expect(throws: RelayError.self) { try Self.message(headers) }
    }

    @Test func topicIsAtMost32Base64URLCharacters() throws {
        var headers = Self.standard
        headers["topic"] = ["new-toot_1"]
        #expect(try Self.message(headers).topic == "new-toot_1")
        for bad in [String(repeating: "a", count: 33), "has space", "a/b", "a=", ""] {
            headers["topic"] = [bad]
            #expect(throws: RelayError.self, "\(bad)") { try Self.message(headers) }
        }
    }

    @Test func bodiesOver4096BytesAre413() {
        #expect(throws: RelayError.bodyTooLarge(4097, limit: 4096)) { try Self.message(Self.standard, body: [UInt8](repeating: 0, count: 4097)) }
        #expect((try? Self.message(Self.standard, body: [UInt8](repeating: 0, count: 4096))) != nil)
    }

    // MARK: Payload

    static func json(_ bytes: [UInt8]) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary)
    }

    @Test func theAes128gcmPayloadDecodesAsTheForkEmitsIt() throws {
        let message = try Self.message(Self.standard, body: Self.rfc8291Body)
        let payload = RelayPayload.encode(message, extra: nil)
        let reference = #"{"aps":{"alert":"🎺","content-available":1,"mutable-content":1},"p":"3#tZwT.i]P0%{LFmT1x\u0026000Mgk)mfy]S5C^AGJ#6sr)M4rfSCffL#%TgtxvoNO$RBF/\u003eLaDv71Qv7Es4D6?XuLiB#F0532sQkFg7yRa\u0026M(\u003c@VN?DJsoX]yV$Q]\u003eca2{mUy]r+[\u003eo5kxhDkTMhUW3\u003eAtpIlev+1N\u003crZD7IFH\u003eR#]E=AMXngoL"}"#
        #expect(try Self.json(payload) == Self.json(Array(reference.utf8)))
        #expect(payload.count < reference.utf8.count, "nothing escaped that JSON does not require")
        #expect(payload.count == RelayPayload.size(bodyCount: message.body.count, encoding: message.encoding, extra: nil))
    }

    @Test func theAesgcmPayloadWithAnExtraDecodesAsTheRelaysEmitIt() throws {
        let message = try Self.message(Self.legacy, body: Self.aesgcmBody)
        let payload = RelayPayload.encode(message, extra: "acct-1")
        let reference = #"{"aps":{"alert":"🎺","content-available":1,"mutable-content":1},"k":"1PyjHS$1ulKXJk=bLKo0L-F9:zitbV*QTeHqZ=gdap.L2DWARqX/q]tM@\u003cVT\u003e@A!+fea3kIS\u003cLBYlJD70f","p":"\u0026\u0026ARvs?*uVW7VA6[+{p[PM%u%Dcpw@@$YUbIEKK}tS\u003c?\u003cwteQ}N74jfKiTLW-1Crgp$fclm]RK","s":"3#tZwT.i]P0%{LFmT1x\u0026","x":"acct-1"}"#
        #expect(try Self.json(payload) == Self.json(Array(reference.utf8)))
        #expect(payload.count == RelayPayload.size(bodyCount: message.body.count, encoding: message.encoding, extra: "acct-1"))
    }

    @Test func anExtraWithQuotesOrControlsStaysValidJSON() throws {
        let message = try Self.message(Self.standard)
        let extra = "a\"b\\c\u{01}é"
        let payload = RelayPayload.encode(message, extra: extra)
        #expect(try Self.json(payload)["x"] as? String == extra)
        #expect(payload.count == RelayPayload.size(bodyCount: message.body.count, encoding: message.encoding, extra: extra))
    }

    @Test func theLargestBodiesThatFitAPNsAreThoseOfThePage() throws {
        // §7: 73 fixed bytes; 3218 bytes of aes128gcm body fit 4096, 3125 of aesgcm.
        #expect(RelayPayload.size(bodyCount: 0, encoding: .aes128gcm, extra: nil) == 73)
        #expect(RelayPayload.size(bodyCount: 3218, encoding: .aes128gcm, extra: nil) <= 4096)
        #expect(RelayPayload.size(bodyCount: 3219, encoding: .aes128gcm, extra: nil) > 4096)
        let legacy = try Self.message(Self.legacy).encoding
        #expect(RelayPayload.size(bodyCount: 3125, encoding: legacy, extra: nil) <= 4096)
        #expect(RelayPayload.size(bodyCount: 3126, encoding: legacy, extra: nil) > 4096)
    }
}
