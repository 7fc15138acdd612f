import Foundation
import HeraldCore
import HeraldMatrix
import Testing

/// Every vector Sygnal 0.17.0 itself produced (scripts/matrix-vectors.py): the APNs payload and
/// priority, and the FCM data and priority, compared as JSON values.
@Suite struct SygnalVectorTests {
    struct Vector: @unchecked Sendable, CustomTestStringConvertible {
        // @unchecked: the JSON objects are read once from the file and never mutated.
        let name: String
        let request: [String: Any]
        let apns: [String: Any]?
        let fcm: [String: Any]?
        var testDescription: String { self.name }
    }

    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Vectors/sygnal-vectors.json")

    static let vectors: [Vector] = {
        guard let data = try? Data(contentsOf: Self.file), let top = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let list = top["vectors"] as? [[String: Any]]
        else { return [] }
        return list.compactMap { entry in
            guard let name = entry["name"] as? String, let request = entry["request"] as? [String: Any] else { return nil }
            return Vector(name: name, request: request, apns: entry["apns"] as? [String: Any], fcm: entry["fcm"] as? [String: Any])
        }
    }()

    @Test func thereAreVectors() {
        #expect(Self.vectors.count >= 12, "\(Self.file.path)")
    }

    /// The notification of a vector's request, with only the device of the given kind.
    static func notification(_ vector: Vector) throws -> MatrixNotification {
        let data = try JSONSerialization.data(withJSONObject: vector.request)
        return try MatrixNotification(parsing: Array(data))
    }

    static func object(_ value: JSONValue) throws -> NSObject {
        try #require(try JSONSerialization.jsonObject(with: Data(value.bytes), options: [.fragmentsAllowed]) as? NSObject)
    }

    @Test(arguments: Self.vectors)
    func apnsPayloadIsSygnals(_ vector: Vector) throws {
        let notification = try Self.notification(vector)
        guard let device = notification.devices.first(where: { MatrixPushkey.apnsToken($0.pushkey) != nil && !$0.pushkey.contains(":") }) else { return }
        let built = MatrixAPNSPayload.build(notification, device: device)
        guard let expected = vector.apns else {
            #expect(built == nil, "Sygnal sends nothing for \(vector.name)")
            return
        }
        let payload = try #require(built)
        let bytes = try #require(MatrixAPNSPayload.bytes(payload))
        #expect(bytes.count <= MatrixAPNSPayload.maximumSize)
        let sent = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? NSObject)
        let want = try #require(expected["payload"] as? NSObject)
        if (expected["truncated"] as? Bool) == true {
            // Sygnal measures its spaced encoding, Herald its compact one, so Herald keeps a few
            // more characters: each shortened text is Sygnal's, then more of the original.
            let original = try Self.object(payload)
            #expect(Self.shortened(herald: sent, sygnal: want, original: original), "\(vector.name): \(String(decoding: bytes, as: UTF8.self).prefix(300))")
            #expect(bytes.count > MatrixAPNSPayload.maximumSize - 16, "no more was cut than needed")
        } else {
            #expect(sent == want, "\(vector.name): \(String(decoding: bytes, as: UTF8.self))")
        }
        if let token = expected["token"] as? String { #expect(MatrixPushkey.apnsToken(device.pushkey) == token) }
        if let headers = expected["headers"] as? [String: String], let priority = headers["apns-priority"] {
            #expect((notification.isLowPriority ? "5" : "10") == priority)
        }
    }

    /// Equal but for texts, where Sygnal's is a prefix of Herald's and Herald's of the original.
    static func shortened(herald: Any, sygnal: Any, original: Any) -> Bool {
        switch (herald, sygnal, original) {
        case let (h as [String: Any], s as [String: Any], o as [String: Any]):
            return Set(h.keys) == Set(s.keys) && h.keys.allSatisfy { key in o[key].map { Self.shortened(herald: h[key]!, sygnal: s[key]!, original: $0) } ?? false }
        case let (h as [Any], s as [Any], o as [Any]):
            return h.count == s.count && h.count == o.count && zip(zip(h, s), o).allSatisfy { Self.shortened(herald: $0.0, sygnal: $0.1, original: $1) }
        case let (h as String, s as String, o as String):
            return Array(h.unicodeScalars).starts(with: Array(s.unicodeScalars)) && Array(o.unicodeScalars).starts(with: Array(h.unicodeScalars))
        case let (h as NSObject, s as NSObject, _):
            return h == s
        default:
            return false
        }
    }

    @Test(arguments: Self.vectors)
    func fcmDataIsSygnals(_ vector: Vector) throws {
        let notification = try Self.notification(vector)
        guard let device = notification.devices.first(where: { $0.pushkey.contains(":") || MatrixPushkey.apnsToken($0.pushkey) == nil }) ?? notification.devices.first else { return }
        let built = MatrixFCMData.build(notification, device: device)
        guard let expected = vector.fcm, let message = expected["message"] as? [String: Any] else {
            #expect(built == nil, "Sygnal sends nothing for \(vector.name)")
            return
        }
        let fields = try #require(built)
        let data = try Self.object(try #require(fields.first { $0.0 == "data" }?.1))
        #expect(data == (message["data"] as? NSObject), "\(vector.name)")
        let priority = (message["android"] as? [String: Any])?["priority"] as? String
        #expect(priority?.lowercased() == (notification.isLowPriority ? "normal" : "high"))
    }
}
