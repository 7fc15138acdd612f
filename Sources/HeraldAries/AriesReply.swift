import Foundation
import HeraldCore

/// The DIDComm v1 plaintext messages Herald answers with (aries.md §2–4), threaded to the message
/// they answer.
public enum AriesReply {
    static func ack(_ kind: AriesProtocol, thread: String) -> [UInt8] {
        Self.message(AriesMessageType(protocol: kind, name: "ack"), thread: thread, [("status", .string("OK"))])
    }

    static func deviceInfo(_ kind: AriesProtocol, thread: String, token: String, platform: String?) -> [UInt8] {
        var fields: [(String, JSONValue)] = [("device_token", .string(token))]
        if kind == .fcm { fields.append(("device_platform", platform.map(JSONValue.string) ?? .null)) }
        return Self.message(AriesMessageType(protocol: kind, name: "device-info"), thread: thread, fields)
    }

    /// RFC 0035, in the adopted form Credo registers (`…/push-notifications-fcm/1.0/problem-report`).
    static func problem(_ kind: AriesProtocol, thread: String, code: String, _ description: String) -> [UInt8] {
        Self.message(
            AriesMessageType(protocol: kind, name: "problem-report"),
            thread: thread,
            [("description", .object([("en", .string(description)), ("code", .string(code))]))]
        )
    }

    /// RFC 0031's `disclose` for the protocols matching `query` (`*` matches any run of
    /// characters), each with the role Herald plays.
    public static func disclose(thread: String, query: String, protocols: [AriesProtocol]) -> [UInt8] {
        let matching = protocols.filter { Self.matches($0.uri, query) }
        let list = JSONValue.array(matching.map { .object([("pid", .string($0.uri)), ("roles", .array([.string("notification-sender")]))]) })
        return Self.message(AriesMessageType(protocol: .discoverFeatures, name: "disclose"), thread: thread, [("protocols", list)])
    }

    static func matches(_ text: String, _ pattern: String) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return text == pattern }
        guard text.hasPrefix(parts[0]), text.hasSuffix(parts[parts.count - 1]) else { return false }
        var rest = Substring(text.dropFirst(parts[0].count))
        for part in parts.dropFirst().dropLast() where !part.isEmpty {
            guard let range = rest.range(of: part) else { return false }
            rest = rest[range.upperBound...]
        }
        return rest.count >= parts[parts.count - 1].count
    }

    private static func message(_ type: AriesMessageType, thread: String, _ fields: [(String, JSONValue)]) -> [UInt8] {
        JSONValue.object(
            [("@type", .string(type.text)), ("@id", .string(RandomUUID.lowercased()))] + fields
                + [("~thread", .object([("thid", .string(thread))]))]
        ).bytes
    }
}
