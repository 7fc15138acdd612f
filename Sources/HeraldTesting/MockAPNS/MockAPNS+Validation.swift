import Foundation
import NIOConcurrencyHelpers
import NIOHPACK

extension MockAPNS {
    /// The mock's answer to one request.
    struct Answer {
        var status: Int
        var reason: String?
        var apnsID: String
        var timestamp: Int64?
        var retryAfter: Int?
        /// The first authenticated request on a connection raises its stream limit.
        var authenticatedNow = false
        /// Headers beside `:status` (channel management answers `apns-request-id`, not `apns-id`).
        var headers: [(String, String)]? = nil
        /// A success's JSON body (channel management's read and list).
        var body: [UInt8]? = nil

        static func error(_ status: Int, _ reason: String, id: String) -> Answer {
            Answer(status: status, reason: reason, apnsID: id)
        }
    }

    static let pushTypes: [String: String] = [
        "alert": "", "background": "", "voip": ".voip", "complication": ".complication",
        "fileprovider": ".pushkit.fileprovider", "liveactivity": ".push-type.liveactivity",
        "location": ".location-query", "mdm": "", "pushtotalk": ".voip-ptt", "widgets": ".push-type.widgets",
        "controls": ".push-type.controls",
    ]

    /// Checks a request in the order of apns.md §8; the first failure answers.
    func validate(headers: HPACKHeaders, body: [UInt8], connection: MockAPNSConnectionState) -> Answer {
        let suppliedID = headers.first(name: "apns-id")
        let id = suppliedID ?? UUID().uuidString.uppercased()
        self.shared.withLockedValue { $0.requests += 1 }
        // Set once a valid provider token is seen: the stream limit rises even if this push then
        // fails a later check, as APNs raises it after the first authenticated request.
        var authenticatedNow = false
        func fail(_ status: Int, _ reason: String) -> Answer {
            var answer = Answer.error(status, reason, id: id)
            answer.authenticatedNow = authenticatedNow
            return answer
        }

        // 1. apns-id
        if let suppliedID, !Self.isUUID(suppliedID) { return fail(400, "BadMessageId") }
        // 2. method (channel management also takes GET and DELETE)
        let broadcastPath = (headers.first(name: ":path") ?? "").hasPrefix("/1/apps/")
        guard headers.first(name: ":method") == "POST" || broadcastPath else { return fail(405, "MethodNotAllowed") }
        // 3. duplicate headers
        var seen = Set<String>()
        for (name, _, _) in headers where !seen.insert(name.lowercased()).inserted {
            return fail(400, "DuplicateHeaders")
        }
        // Broadcast (iOS 18): channel management and broadcast sends check an order of their own.
        let path = headers.first(name: ":path") ?? ""
        if path.hasPrefix("/1/apps/") || path.hasPrefix("/4/broadcasts/apps/") {
            return self.validateBroadcast(headers: headers, body: body, path: path, connection: connection)
        }
        // 4. path and device token
        guard path != "/3/device/" else { return fail(400, "MissingDeviceToken") }
        guard path.hasPrefix("/3/device/") else { return fail(404, "BadPath") }
        let token = String(path.dropFirst("/3/device/".count))
        guard token.utf8.count == 64, token.utf8.allSatisfy(Self.isHex) else { return fail(400, "BadDeviceToken") }
        // 5. provider token
        let verified: MockAPNSProviderToken
        switch self.authenticate(headers, connection: connection, id: id) {
        case .success(let token): verified = token
        case .failure(let refusal): return refusal.answer
        }
        authenticatedNow = connection.state.withLockedValue { state in
            defer { state.authenticated = true }
            return !state.authenticated
        }
        // 6. topic
        guard let topic = headers.first(name: "apns-topic"), !topic.isEmpty else { return fail(400, "MissingTopic") }
        if let allowed = self.configuration.topics[verified.teamID],
            !allowed.contains(where: { base in topic == base || topic.hasPrefix(base + ".") })
        {
            return fail(400, "TopicDisallowed")
        }
        // 7. push type, and its topic suffix
        let pushType = headers.first(name: "apns-push-type")
        if let pushType {
            guard let suffix = Self.pushTypes[pushType] else { return fail(400, "InvalidPushType") }
            if !suffix.isEmpty, !topic.hasSuffix(suffix) { return fail(400, "BadTopic") }
        }
        // 8. priority
        let priority = headers.first(name: "apns-priority")
        if let priority {
            guard ["10", "5", "1"].contains(priority) else { return fail(400, "BadPriority") }
            if pushType == "background", priority == "10" { return fail(400, "BadPriority") }
        }
        // 9. expiration
        let expiration = headers.first(name: "apns-expiration")
        if let expiration, expiration.isEmpty || !expiration.utf8.allSatisfy({ (48...57).contains($0) }) {
            return fail(400, "BadExpirationDate")
        }
        // 10. collapse id
        let collapseID = headers.first(name: "apns-collapse-id")
        if let collapseID, collapseID.utf8.count > 64 { return fail(400, "BadCollapseId") }
        // 11. payload
        guard !body.isEmpty else { return fail(400, "PayloadEmpty") }
        guard body.count <= (pushType == "voip" ? 5120 : 4096) else { return fail(413, "PayloadTooLarge") }
        // APNs' reason for malformed JSON is not documented; the mock's choice is BadPayload.
        guard (try? JSONSerialization.jsonObject(with: Data(body))) is [String: Any] else { return fail(400, "BadPayload") }

        // 12. scripted answers
        if let scripted = self.scriptedAnswer(token: token, id: id) {
            var answer = scripted
            answer.authenticatedNow = authenticatedNow
            return answer
        }
        // 13. success
        self.record(
            AcceptedPush(
                apnsID: id,
                token: token,
                topic: topic,
                pushType: pushType,
                priority: priority,
                expiration: expiration,
                collapseID: collapseID,
                payload: body,
                keyID: verified.keyID,
                connection: connection.id
            )
        )
        var answer = Answer(status: 200, apnsID: id)
        answer.authenticatedNow = authenticatedNow
        return answer
    }


    /// A refused request's answer, as an `Error` for `Result`.
    struct Refusal: Error {
        var answer: Answer
    }

    /// Step 5 of apns.md §8: the provider token (or `MissingProviderToken`), its age, its key's
    /// environment and the connection's key binding and token history.
    func authenticate(_ headers: HPACKHeaders, connection: MockAPNSConnectionState, id: String) -> Result<MockAPNSProviderToken, Refusal> {
        let authorization = headers.first(name: "authorization") ?? ""
        guard authorization.hasPrefix("bearer ") else { return .failure(Refusal(answer: .error(403, "MissingProviderToken", id: id))) }
        let jwt = authorization.dropFirst("bearer ".count)
        let now = self.configuration.now()
        let verified: MockAPNSProviderToken
        let cached = connection.state.withLockedValue { $0.verified[String(jwt)] }
        if let cached {
            verified = cached
        } else {
            do {
                verified = try MockAPNSProviderToken.verify(jwt, keys: self.keysByID)
            } catch {
                return .failure(Refusal(answer: .error(403, "InvalidProviderToken", id: id)))
            }
            self.recordProviderToken(String(jwt))
        }
        guard now.timeIntervalSince(verified.issuedAt) <= 3600 else { return .failure(Refusal(answer: .error(403, "ExpiredProviderToken", id: id))) }
        if let environment = self.keysByID[verified.keyID]?.environment, environment != self.configuration.environment {
            return .failure(Refusal(answer: .error(403, "BadEnvironmentKeyIdInToken", id: id)))
        }
        let binding: Answer? = connection.state.withLockedValue { state in
            if let bound = state.boundKeyID, bound != verified.keyID { return .error(403, "UnrelatedKeyIdInToken", id: id) }
            // The first token of a connection is not an update; each change after it is, and two
            // updates within 20 minutes are one too many.
            if let last = state.lastToken, last != String(jwt) {
                if let changed = state.lastTokenChange, now.timeIntervalSince(changed) < 20 * 60 {
                    return .error(429, "TooManyProviderTokenUpdates", id: id)
                }
                state.lastTokenChange = now
            }
            state.boundKeyID = verified.keyID
            state.lastToken = String(jwt)
            state.verified[String(jwt)] = verified
            return nil
        }
        if let binding { return .failure(Refusal(answer: binding)) }
        return .success(verified)
    }

    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        return bytes.enumerated().allSatisfy { index, byte in
            [8, 13, 18, 23].contains(index) ? byte == UInt8(ascii: "-") : isHex(byte)
        }
    }

    static func isHex(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
    }
}
