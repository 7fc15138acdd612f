import Foundation
import HeraldCore
import SwiftProtobuf

/// A NotifyMe registration as the app sent it (silent-sync.md §1): its app-instance token
/// (`deviceId`), which provider, and the token, or none to unregister.
public struct SilentRegistrationRequest: Sendable, Hashable {
    public enum PushType: String, Sendable, Hashable, Codable {
        /// APNs production.
        case ios = "IOS"
        /// APNs sandbox (iOS development builds).
        case iod = "IOD"
        /// FCM.
        case and = "AND"
    }

    /// Longest `deviceId` taken: NotifyMe's column is 255 characters.
    public static let maximumDeviceIDLength = 255

    public var deviceID: String
    public var pushType: PushType
    /// `nil` unregisters: the app sends an empty (or blank) token.
    public var token: String?

    public init(deviceID: String, pushType: PushType, token: String?) {
        self.deviceID = deviceID
        self.pushType = pushType
        self.token = token
    }

    /// Reads a body of `contentType`: the protobuf (`application/x-protobuf`,
    /// `application/protobuf`) or its proto3 JSON form (`application/json`).
    public init(body: [UInt8], contentType: String?) throws(SilentError) {
        let mediaType = (contentType ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let message: Ch_Ubique_Notifyme_Sdk_Backend_Model_PushRegistration
        switch mediaType {
        case "application/x-protobuf", "application/protobuf":
            do {
                message = try Ch_Ubique_Notifyme_Sdk_Backend_Model_PushRegistration(serializedBytes: body)
            } catch {
                throw .malformed("the body is not a PushRegistration protobuf")
            }
        case "application/json":
            do {
                message = try Ch_Ubique_Notifyme_Sdk_Backend_Model_PushRegistration(jsonUTF8Data: Data(body))
            } catch {
                throw .malformed("the body is not a PushRegistration in proto3 JSON: \(ProtoJSONFailure.describe(error, body: body))")
            }
        default:
            throw .unsupportedMediaType(contentType)
        }
        let type: PushType
        switch message.pushType {
        case .ios: type = .ios
        case .iod: type = .iod
        case .and: type = .and
        case .UNRECOGNIZED(let value): throw .malformed("pushType \(value) is not IOS (0), AND (1) or IOD (2)")
        }
        guard !message.deviceID.isEmpty, !message.deviceID.allSatisfy(\.isWhitespace) else {
            throw .malformed("deviceId is missing: it identifies the registration")
        }
        guard message.deviceID.utf8.count <= Self.maximumDeviceIDLength else {
            throw .malformed("deviceId is longer than \(Self.maximumDeviceIDLength) bytes")
        }
        let token = message.pushToken.trimmingCharacters(in: .whitespacesAndNewlines)
        self.init(deviceID: message.deviceID, pushType: type, token: token.isEmpty ? nil : token)
        if let token = self.token { self.token = try Self.checked(token, for: type) }
    }

    /// The token as it is stored: APNs tokens lower-cased hex, FCM tokens as sent; anything
    /// APNs or FCM would refuse is refused here.
    static func checked(_ token: String, for type: PushType) throws(SilentError) -> String {
        switch type {
        case .ios, .iod:
            guard (2...200).contains(token.utf8.count), token.utf8.count % 2 == 0, token.utf8.allSatisfy({ $0.isHexDigit }) else {
                throw .malformed("pushToken is not an APNs device token (an even number of hex digits, at most 200)")
            }
            return token.lowercased()
        case .and:
            guard token.utf8.count <= 4096, token.utf8.allSatisfy({ $0.isFCMTokenByte }) else {
                throw .malformed("pushToken is not an FCM registration token")
            }
            return token
        }
    }

    /// The JSON other nodes are forwarded, in a cluster.
    public var json: [UInt8] {
        var message = Ch_Ubique_Notifyme_Sdk_Backend_Model_PushRegistration()
        message.version = 1
        message.deviceID = self.deviceID
        message.pushToken = self.token ?? ""
        message.pushType =
            switch self.pushType {
            case .ios: .ios
            case .iod: .iod
            case .and: .and
            }
        return Array((try? message.jsonUTF8Data()) ?? Data())
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }

    fileprivate var isFCMTokenByte: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || self == UInt8(ascii: "_") || self == UInt8(ascii: "-")
            || self == UInt8(ascii: ":")
    }
}
