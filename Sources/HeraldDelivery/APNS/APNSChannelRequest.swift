import Foundation
import HeraldCore

/// A request of iOS 18 broadcast: to APNs' channel management API (create, read, delete, list
/// a bundle's channels) or a broadcast to a channel's subscribers (apns-live-activities.md §2.2,
/// §2.3). The channel id goes in a header, never the path.
public struct APNSChannelRequest: ProviderRequest {
    /// How long a channel's newest message is kept for devices that come online later.
    public enum StoragePolicy: Int, Sendable, Hashable, CaseIterable {
        /// Nothing kept: a higher publishing budget, and broadcasts must expire at once (0).
        case none = 0
        /// The most recent message, for at most eight hours.
        case mostRecent = 1
    }

    public let method: String
    public let path: String
    let headers: [(String, String)]
    public let body: [UInt8]
    /// The `apns-request-id` APNs echoes.
    public let requestID: String

    init(method: String, path: String, headers: [(String, String)], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.requestID = UUID().uuidString.lowercased()
        self.headers = [("apns-request-id", self.requestID)] + headers
        self.body = body
    }

    /// `POST /1/apps/<bundle>/channels`: a new channel of Live Activity pushes.
    public static func create(bundleID: String, storagePolicy: StoragePolicy) -> Self {
        let body = Array(#"{"message-storage-policy":\#(storagePolicy.rawValue),"push-type":"LiveActivity"}"#.utf8)
        return Self(method: "POST", path: "/1/apps/\(bundleID)/channels", headers: [("content-type", "application/json")], body: body)
    }

    /// `GET /1/apps/<bundle>/channels` with the id: its storage policy and push type.
    public static func read(bundleID: String, channelID: String) -> Self {
        Self(method: "GET", path: "/1/apps/\(bundleID)/channels", headers: [("apns-channel-id", channelID)])
    }

    /// `DELETE /1/apps/<bundle>/channels` with the id.
    public static func delete(bundleID: String, channelID: String) -> Self {
        Self(method: "DELETE", path: "/1/apps/\(bundleID)/channels", headers: [("apns-channel-id", channelID)])
    }

    /// `GET /1/apps/<bundle>/all-channels`: every channel's id.
    public static func list(bundleID: String) -> Self {
        Self(method: "GET", path: "/1/apps/\(bundleID)/all-channels", headers: [])
    }

    /// `POST /4/broadcasts/apps/<bundle>` on the device host: a Live Activity `update` or `end`
    /// to every device subscribed to the channel.
    public static func broadcast(bundleID: String, channelID: String, payload: [UInt8], priority: Int, expiration: Int64) -> Self {
        Self(
            method: "POST",
            path: "/4/broadcasts/apps/\(bundleID)",
            headers: [
                ("apns-channel-id", channelID),
                // Apple's samples, table and error list disagree on the case; its samples send this.
                ("apns-push-type", "liveactivity"),
                ("apns-expiration", String(expiration)),
                ("apns-priority", String(priority)),
                ("content-type", "application/json"),
            ],
            body: payload
        )
    }

    /// Broadcast payloads may be larger than a device push's 4096 bytes.
    public static let broadcastPayloadLimit = 5120
    /// APNs allows 10, 5 and 1 on a broadcast.
    public static let broadcastPriorities: Set<Int> = [10, 5, 1]

    public var fields: HTTP2Fields {
        var fields = HTTP2Fields()
        fields.add(name: ":method", value: self.method)
        fields.add(name: ":path", value: self.path)
        for (name, value) in self.headers { fields.add(name: name, value: value) }
        if !self.body.isEmpty { fields.add(name: "content-length", value: String(self.body.count)) }
        return fields
    }

    /// As a device push's: one provider token for every request of the next hour.
    public static var indexesAuthorization: Bool { true }

    /// 2xx is done (create answers 201, delete 204, and a report says create may answer 200);
    /// the rest is decided as a device push's answer is, so throttling and server errors retry.
    public func decision(for response: HTTP2Response) -> AttemptVerdict {
        if (200..<300).contains(response.status) { return .finish(.delivered) }
        let verdict = APNSResponse(response).decision
        // A create APNs may have carried out before failing to answer is not tried again: a second
        // channel would leak toward the 10,000 an app may hold. 429 and 503 said it was not done.
        if self.isCreate, case .retry(let reason, _, _) = verdict, response.status != 429, response.status != 503 {
            return .finish(.failed(reason: "\(reason); the channel may have been created: list the channels"))
        }
        return verdict
    }

    var isCreate: Bool { self.method == "POST" && self.path.hasPrefix("/1/apps/") }
}
