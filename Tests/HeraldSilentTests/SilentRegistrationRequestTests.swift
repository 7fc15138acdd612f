import HeraldSilent
import HTTPTypes
import SwiftProtobuf
import Testing

/// NotifyMe registration bodies: protobuf or its proto3 JSON form, and every refusal naming what
/// is wrong.
@Suite struct SilentRegistrationRequestTests {
    typealias Message = Ch_Ubique_Notifyme_Sdk_Backend_Model_PushRegistration

    static let apnsToken = String(repeating: "ab", count: 32)
    static let fcmToken = "dGVzdA:APA91b_Tok-en"

    static func protobuf(
        deviceID: String = "A-INSTALL",
        type: Ch_Ubique_Notifyme_Sdk_Backend_Model_PushType = .ios,
        token: String
    ) throws -> [UInt8] {
        var message = Message()
        message.version = 1
        message.deviceID = deviceID
        message.pushType = type
        message.pushToken = token
        return try message.serializedBytes()
    }

    static func json(deviceID: String = "A-INSTALL", type: String, token: String) -> [UInt8] {
        Array(#"{"version":1,"pushToken":"\#(token)","pushType":"\#(type)","deviceId":"\#(deviceID)"}"#.utf8)
    }

    static func read(_ body: [UInt8], _ contentType: String? = "application/json") throws(SilentError) -> SilentRegistrationRequest {
        try SilentRegistrationRequest(body: body, contentType: contentType)
    }

    // MARK: Bodies

    @Test(arguments: ["application/x-protobuf", "application/protobuf", "Application/X-Protobuf; charset=binary", " application/protobuf ;q=1"])
    func protobufIsReadUnderEitherMediaType(contentType: String) throws {
        let request = try Self.read(Self.protobuf(type: .iod, token: Self.apnsToken), contentType)
        #expect(request == SilentRegistrationRequest(deviceID: "A-INSTALL", pushType: .iod, token: Self.apnsToken))
    }

    @Test func proto3JSONIsReadWithNamesNumbersAndDefaults() throws {
        let named = try Self.read(Self.json(deviceID: "B", type: "AND", token: Self.fcmToken), "application/json; charset=utf-8")
        #expect(named == SilentRegistrationRequest(deviceID: "B", pushType: .and, token: Self.fcmToken))
        // proto3 JSON also takes an enum's number, and a field left out has its default (IOS).
        let numbered = try Self.read(Array(#"{"pushType":2,"deviceId":"C","pushToken":"ABCD"}"#.utf8))
        #expect(numbered == SilentRegistrationRequest(deviceID: "C", pushType: .iod, token: "abcd"))
        let defaulted = try Self.read(Array(#"{"deviceId":"D","pushToken":"abcd"}"#.utf8))
        #expect(defaulted.pushType == .ios)
    }

    @Test(arguments: [nil, "", "text/plain", "application/jsonx", "application/x-www-form-urlencoded"] as [String?])
    func otherMediaTypesAreRefusedWith415(contentType: String?) {
        // The body is a valid registration: the media type alone decides.
        let error = #expect(throws: SilentError.self) { try Self.read(Self.json(type: "IOS", token: Self.apnsToken), contentType) }
        #expect(error == SilentError.unsupportedMediaType(contentType))
        #expect(error?.status == HTTPResponse.Status.unsupportedMediaType)
    }

    @Test(arguments: [
        ([0xFF, 0xFF, 0xFF], "application/x-protobuf", "the body is not a PushRegistration protobuf"),
        (Array(#"{"deviceId":"#.utf8), "application/json", "the body is not a PushRegistration in proto3 JSON"),
        (Array(#"{"deviceId":"x","pushType":"WEB"}"#.utf8), "application/json", "the body is not a PushRegistration in proto3 JSON"),
        (Array(#"{"deviceId":"x","pushType":7}"#.utf8), "application/json", "pushType 7 is not IOS (0), AND (1) or IOD (2)"),
        (Array(#"{"deviceId":"x","version":1e999}"#.utf8), "application/json", "the body is not a PushRegistration in proto3 JSON: a number is out of range"),
        (Array(#"{"deviceId":"x","version":99999999999}"#.utf8), "application/json", "the body is not a PushRegistration in proto3 JSON: a number is out of"),
        (Array(#"{"deviceId":"x","colour":1}"#.utf8), "application/json", "the body is not a PushRegistration in proto3 JSON: unknown field 'colour'"),
        ([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D], "application/json", "the body is not a PushRegistration in proto3 JSON: "),
        ([], "application/x-protobuf", "deviceId is missing"),
        (Array(#"{"deviceId":" \t ","pushToken":"abcd"}"#.utf8), "application/json", "deviceId is missing"),
    ] as [([UInt8], String, String)])
    func malformedBodiesAre400NamingWhatIsWrong(body: [UInt8], contentType: String, names: String) {
        let error = #expect(throws: SilentError.self) { try Self.read(body, contentType) }
        #expect(error?.status == HTTPResponse.Status.badRequest)
        #expect(error?.description.hasPrefix(names) == true, "\(String(describing: error))")
    }

    @Test func truncatedProtobufAndOverlongDeviceIDsAreRefused() throws {
        let whole = try Self.protobuf(token: Self.apnsToken)
        let truncated = #expect(throws: SilentError.self) { try Self.read(Array(whole.dropLast()), "application/x-protobuf") }
        #expect(truncated == SilentError.malformed("the body is not a PushRegistration protobuf"))
        // NotifyMe's column holds 255 characters; the limit counts UTF-8 bytes.
        let longest = String(repeating: "d", count: SilentRegistrationRequest.maximumDeviceIDLength)
        #expect(try Self.read(Self.protobuf(deviceID: longest, token: ""), "application/x-protobuf").deviceID == longest)
        let overlong = String(repeating: "é", count: 128)
        let refused = #expect(throws: SilentError.self) { try Self.read(Self.protobuf(deviceID: overlong, token: ""), "application/x-protobuf") }
        #expect(refused == SilentError.malformed("deviceId is longer than 255 bytes"))
    }

    // MARK: Tokens

    @Test(arguments: ["", "   ", "\n\t "])
    func aBlankTokenUnregisters(token: String) throws {
        for type in [Ch_Ubique_Notifyme_Sdk_Backend_Model_PushType.ios, .iod, .and] {
            #expect(try Self.read(Self.protobuf(type: type, token: token), "application/x-protobuf").token == nil)
        }
    }

    @Test func apnsTokensAreEvenHexOfAtMost200DigitsKeptLowerCase() throws {
        for type in ["IOS", "IOD"] {
            #expect(try Self.read(Self.json(type: type, token: "  ABCDEF0123  ")).token == "abcdef0123")
            let longest = String(repeating: "F", count: 200)
            #expect(try Self.read(Self.json(type: type, token: longest)).token == longest.lowercased())
            for bad in ["abc", "zz", "ab cd", "abcdé0", "0x12", String(repeating: "a", count: 202), Self.fcmToken] {
                let error = #expect(throws: SilentError.self) { try Self.read(Self.json(type: type, token: bad)) }
                #expect(
                    error == SilentError.malformed("pushToken is not an APNs device token (an even number of hex digits, at most 200)"),
                    "\(type) \(bad)"
                )
            }
        }
    }

    @Test func fcmTokensAreKeptAsSentAndRefusedWithForeignCharacters() throws {
        #expect(try Self.read(Self.json(type: "AND", token: Self.fcmToken)).token == Self.fcmToken, "not lower-cased")
        let longest = String(repeating: "A", count: 4096)
        #expect(try Self.read(Self.json(type: "AND", token: longest)).token == longest)
        for bad in ["tok/en", "tok en", "tök", "tok+en=", String(repeating: "A", count: 4097)] {
            let error = #expect(throws: SilentError.self) { try Self.read(Self.json(type: "AND", token: bad)) }
            #expect(error == SilentError.malformed("pushToken is not an FCM registration token"), "\(bad)")
        }
    }

    // MARK: Forwarding

    @Test(arguments: [
        SilentRegistrationRequest(deviceID: "A-INSTALL", pushType: .ios, token: String(repeating: "ab", count: 32)),
        SilentRegistrationRequest(deviceID: "B-INSTALL", pushType: .and, token: "dGVzdA:APA91b_Tok-en"),
        SilentRegistrationRequest(deviceID: "C-INSTALL", pushType: .iod, token: nil),
    ])
    func theJSONForwardedToTheOwnerReadsBackAsTheSameRequest(request: SilentRegistrationRequest) throws {
        #expect(try Self.read(request.json, "application/json") == request)
    }
}
