public import HeraldCore

/// The body of an APNs request: the `aps` dictionary and the app's own keys beside it
/// (apns.md §3). Every front door builds its APNs body here, so the key order and the rules
/// (an empty field is left out, `content-available` is `1`) are the same for all of them.
public struct APNSPayload: Sendable, Hashable {
    public enum Alert: Sendable, Hashable {
        /// `"alert": "…"`: the body only.
        case text(String)
        /// `"alert": {…}`: title, body, localisation keys, in the order given.
        case fields(JSONValue)
    }

    public var alert: Alert?
    public var badge: Int?
    /// A name, or the `{critical, name, volume}` dictionary of a critical alert.
    public var sound: JSONValue?
    public var category: String?
    public var threadID: String?
    public var urlArgs: [String]?
    /// A background push: `content-available: 1`.
    public var contentAvailable = false
    /// The notification service extension may change it: `mutable-content: 1`.
    public var mutableContent = false
    public var interruptionLevel: String?
    public var relevanceScore: Double?
    // Live Activities.
    public var contentState: JSONValue?
    public var staleDate: Int64?
    public var dismissalDate: Int64?
    public var event: String?
    public var timestamp: Int64?
    public var attributesType: String?
    public var attributes: JSONValue?
    /// The app's own keys, beside `aps`; a key named `aps` is left out.
    public var custom: [(String, JSONValue)] = []

    public init(alert: Alert? = nil, custom: [(String, JSONValue)] = []) {
        self.alert = alert
        self.custom = custom
    }

    public var json: JSONValue {
        var aps: [(String, JSONValue)] = []
        switch self.alert {
        case .text(let text): aps.append(("alert", .string(text)))
        case .fields(let fields): aps.append(("alert", fields))
        case nil: break
        }
        if let badge = self.badge, badge >= 0 { aps.append(("badge", .number(Double(badge)))) }
        if let sound = self.sound { aps.append(("sound", sound)) }
        if let category = self.category, !category.isEmpty { aps.append(("category", .string(category))) }
        if let threadID = self.threadID, !threadID.isEmpty { aps.append(("thread-id", .string(threadID))) }
        if let urlArgs = self.urlArgs, !urlArgs.isEmpty { aps.append(("url-args", .array(urlArgs.map(JSONValue.string)))) }
        if self.contentAvailable { aps.append(("content-available", .number(1))) }
        if self.mutableContent { aps.append(("mutable-content", .number(1))) }
        if let level = self.interruptionLevel, !level.isEmpty { aps.append(("interruption-level", .string(level))) }
        if let score = self.relevanceScore { aps.append(("relevance-score", .number(score))) }
        if let state = self.contentState { aps.append(("content-state", state)) }
        if let staleDate = self.staleDate { aps.append(("stale-date", .number(Double(staleDate)))) }
        if let dismissalDate = self.dismissalDate { aps.append(("dismissal-date", .number(Double(dismissalDate)))) }
        if let event = self.event, !event.isEmpty { aps.append(("event", .string(event))) }
        if let timestamp = self.timestamp { aps.append(("timestamp", .number(Double(timestamp)))) }
        if let type = self.attributesType, !type.isEmpty { aps.append(("attributes-type", .string(type))) }
        if let attributes = self.attributes { aps.append(("attributes", attributes)) }
        return .object([("aps", .object(aps))] + self.custom.filter { $0.0 != "aps" })
    }

    /// The encoded body.
    public var bytes: [UInt8] { self.json.bytes }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.json == rhs.json }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.json) }
}
