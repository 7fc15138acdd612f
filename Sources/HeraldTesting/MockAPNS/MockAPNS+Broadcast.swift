import Foundation
import NIOConcurrencyHelpers
import NIOHPACK

extension MockAPNS {
    /// A broadcast the mock accepted (answered 200).
    public struct AcceptedBroadcast: Sendable, Hashable {
        public var bundleID: String
        public var channelID: String
        public var pushType: String
        public var priority: String
        public var expiration: String?
        public var requestID: String
        public var uniqueID: String
        public var payload: [UInt8]
    }

    /// Every broadcast answered 200, in order.
    public var broadcasts: [AcceptedBroadcast] { self.shared.withLockedValue { $0.broadcasts } }

    /// The channels of `bundleID` now: id → message storage policy.
    public func channels(of bundleID: String) -> [String: Int] {
        self.shared.withLockedValue { $0.channels[bundleID] ?? [:] }
    }

    /// Channel management and broadcast sends, checked in the order of
    /// apns-live-activities.md §4: path and method, authentication, the bundle, the capability,
    /// the channel header, then the body or the send's headers; the first failure answers.
    func validateBroadcast(headers: HPACKHeaders, body: [UInt8], path: String, connection: MockAPNSConnectionState) -> Answer {
        let suppliedRequestID = headers.first(name: "apns-request-id")
        let requestID = suppliedRequestID ?? UUID().uuidString.lowercased()
        var authenticatedNow = false
        func answer(_ status: Int, _ reason: String? = nil, headers extra: [(String, String)] = [], body: [UInt8]? = nil) -> Answer {
            var answer = Answer(status: status, reason: reason, apnsID: requestID)
            answer.headers = [("apns-request-id", requestID)] + extra
            answer.body = body
            answer.authenticatedNow = authenticatedNow
            return answer
        }
        if let suppliedRequestID, !Self.isUUID(suppliedRequestID) { return answer(400, "BadMessageId") }

        // Path and method.
        let method = headers.first(name: ":method") ?? ""
        enum Operation { case create, read, delete, list, send }
        let operation: Operation
        let bundleID: String
        if path.hasPrefix("/4/broadcasts/apps/") {
            bundleID = String(path.dropFirst("/4/broadcasts/apps/".count))
            guard method == "POST" else { return answer(405, "MethodNotAllowed") }
            operation = .send
        } else {
            let rest = path.dropFirst("/1/apps/".count)
            guard let slash = rest.firstIndex(of: "/") else { return answer(404, "BadPath") }
            bundleID = String(rest[..<slash])
            switch (rest[rest.index(after: slash)...], method) {
            case ("channels", "POST"): operation = .create
            case ("channels", "GET"): operation = .read
            case ("channels", "DELETE"): operation = .delete
            case ("all-channels", "GET"): operation = .list
            case ("channels", _), ("all-channels", _): return answer(405, "MethodNotAllowed")
            default: return answer(404, "BadPath")
            }
        }
        guard !bundleID.isEmpty, !bundleID.contains("/") else { return answer(404, "BadPath") }

        // Authentication, then the bundle the key may push to.
        let verified: MockAPNSProviderToken
        switch self.authenticate(headers, connection: connection, id: requestID) {
        case .success(let token): verified = token
        case .failure(let refusal):
            var refused = refusal.answer
            refused.headers = [("apns-request-id", requestID)]
            return refused
        }
        authenticatedNow = connection.state.withLockedValue { state in
            defer { state.authenticated = true }
            return !state.authenticated
        }
        if let allowed = self.configuration.topics[verified.teamID] {
            if allowed.contains(where: { bundleID.hasPrefix($0 + ".") }) { return answer(400, "TopicDisallowed") }
            guard allowed.contains(bundleID) else { return answer(403, "TopicMismatch") }
        } else if Self.pushTypes.values.contains(where: { !$0.isEmpty && bundleID.hasSuffix($0) }) {
            return answer(400, "TopicDisallowed")
        }
        guard self.configuration.broadcastEnabled else { return answer(400, "FeatureNotEnabled") }

        // The channel header.
        var channelID: String?
        if operation != .create, operation != .list {
            guard let given = headers.first(name: "apns-channel-id"), !given.isEmpty else { return answer(400, "MissingChannelId") }
            guard given.utf8.count <= 64, Data(base64Encoded: given) != nil else { return answer(400, "BadChannelId") }
            guard self.channels(of: bundleID)[given] != nil else { return answer(400, "ChannelNotRegistered") }
            channelID = given
        }

        switch operation {
        case .create:
            guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return answer(400, "BadRequestPayload") }
            guard Set(object.keys) == ["message-storage-policy", "push-type"],
                let policy = object["message-storage-policy"] as? Int, policy == 0 || policy == 1,
                object["push-type"] as? String == "LiveActivity"
            else { return answer(400, "BadRequestParams") }
            let id = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            let created = self.shared.withLockedValue { shared -> Bool in
                guard (shared.channels[bundleID]?.count ?? 0) < self.configuration.maximumChannels else { return false }
                shared.channels[bundleID, default: [:]][id] = policy
                return true
            }
            guard created else { return answer(400, "CannotCreateChannelConfig") }
            return answer(201, headers: [("apns-channel-id", id)])
        case .read:
            let policy = self.channels(of: bundleID)[channelID!] ?? 0
            return answer(200, headers: [("content-type", "application/json")], body: Array(#"{"message-storage-policy":\#(policy),"push-type":"LiveActivity"}"#.utf8))
        case .delete:
            self.shared.withLockedValue { _ = $0.channels[bundleID]?.removeValue(forKey: channelID!) }
            return answer(204)
        case .list:
            let ids = self.channels(of: bundleID).keys.sorted().map { "\"\($0)\"" }.joined(separator: ",")
            return answer(200, headers: [("content-type", "application/json")], body: Array(#"{"channels":[\#(ids)]}"#.utf8))
        case .send:
            guard let pushType = headers.first(name: "apns-push-type") else { return answer(400, "MissingPushType") }
            guard pushType.lowercased() == "liveactivity" else { return answer(400, "InvalidPushType") }
            let expiration = headers.first(name: "apns-expiration")
            if let expiration {
                guard !expiration.isEmpty, expiration.utf8.allSatisfy({ (48...57).contains($0) }) else { return answer(400, "BadExpirationDate") }
                if expiration != "0", self.channels(of: bundleID)[channelID!] == 0 { return answer(400, "BadExpirationDate") }
            }
            guard let priority = headers.first(name: "apns-priority"), ["10", "5", "1"].contains(priority) else { return answer(400, "BadPriority") }
            guard !body.isEmpty else { return answer(400, "PayloadEmpty") }
            guard body.count <= 5120 else { return answer(413, "PayloadTooLarge") }
            guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any], object["aps"] is [String: Any] else {
                return answer(400, "BadRequestPayload")
            }
            let uniqueID = UUID().uuidString.lowercased()
            self.shared.withLockedValue {
                $0.broadcasts.append(
                    AcceptedBroadcast(
                        bundleID: bundleID, channelID: channelID!, pushType: pushType, priority: priority, expiration: expiration,
                        requestID: requestID, uniqueID: uniqueID, payload: body
                    )
                )
            }
            return answer(200, headers: [("apns-unique-id", uniqueID)])
        }
    }
}
