public import HeraldCore

/// A homeserver's `POST /_matrix/push/v1/notify` body, checked as Sygnal checks it
/// (docs/matrix-push-facts.md §1.2, §2.2): the whole request is refused before anything is
/// pushed, unknown keys are ignored, and the fields Sygnal does not check are read when they
/// have the type the spec gives them and ignored otherwise.
public struct MatrixNotification: Sendable {
    public var eventID: String?
    public var roomID: String?
    public var type: String?
    public var sender: String?
    public var senderDisplayName: String?
    public var roomName: String?
    public var roomAlias: String?
    /// Not in the spec: Synapse sends it for `m.room.member` events.
    public var membership: String?
    public var userIsTarget: Bool?
    /// `low`, or anything else (high).
    public var prio: String?
    /// The event's `content`, in order.
    public var content: [(String, JSONValue)]?
    public var unread: Int?
    public var missedCalls: Int?
    public var devices: [Device]
    /// The `notification` object as the homeserver sent it, for a request forwarded with one of
    /// its devices alone.
    public var fields: [(String, JSONValue)]

    public struct Device: Sendable {
        public var appID: String
        public var pushkey: String
        /// Seconds since 1970 of the pushkey's last update.
        public var pushkeyTimestamp: Int64?
        /// The pusher's `data` minus `url`.
        public var data: [(String, JSONValue)]
        public var tweaks: [(String, JSONValue)]
        /// The device as the homeserver sent it, for a request forwarded with it alone.
        public var raw: JSONValue

        /// `data.default_payload`: what the client asked to find in every push; `nil` when absent.
        public var defaultPayload: JSONValue? { self.data.first { $0.0 == "default_payload" }?.1 }

        /// Absent, or an object. Anything else (`null` too) is a pusher no push can be built for:
        /// Sygnal rejects its pushkey without sending, and so does Herald.
        public var hasUsableDefaultPayload: Bool {
            switch self.defaultPayload {
            case nil, .object?: true
            default: false
            }
        }
    }

    /// Low priority: APNs 5, FCM `normal`.
    public var isLowPriority: Bool { self.prio == "low" }

    /// Whether the homeserver sent only the event's id (a pusher of `format: event_id_only`), as
    /// Sygnal tells: an event id and no type.
    public var isEventIDOnly: Bool { !(self.eventID ?? "").isEmpty && (self.type ?? "").isEmpty }

    public static let maximumBody = 512 * 1024

    public init(parsing body: [UInt8]) throws(MatrixError) {
        guard body.count <= Self.maximumBody else { throw MatrixError(.tooLarge, "the request body is over \(Self.maximumBody) bytes") }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: body)
        } catch {
            throw MatrixError(.notJSON, "Expected JSON request body")
        }
        guard case .object(let top) = value, case .object(let fields)? = top.last(where: { $0.0 == "notification" })?.1 else {
            throw MatrixError(.badJSON, "Invalid notification: expecting object in 'notification' key")
        }
        self.fields = fields
        func field(_ name: String) -> JSONValue? { fields.last { $0.0 == name }?.1 }
        func string(_ name: String) -> String? {
            if case .string(let text)? = field(name) { return text }
            return nil
        }
        guard case .array(let list)? = field("devices") else { throw MatrixError(.badJSON, "Expected list in 'devices' key") }
        guard !list.isEmpty else { throw MatrixError(.badJSON, "No devices in notification") }
        self.devices = try list.map { value throws(MatrixError) in try Self.device(value) }
        self.eventID = string("event_id")
        self.roomID = string("room_id")
        self.type = string("type")
        self.sender = string("sender")
        self.senderDisplayName = string("sender_display_name")
        self.roomName = string("room_name")
        self.roomAlias = string("room_alias")
        self.membership = string("membership")
        if case .bool(let target)? = field("user_is_target") { self.userIsTarget = target }
        self.prio = string("prio")
        if case .object(let content)? = field("content") { self.content = content }
        switch field("counts") {
        case nil, .null?:
            break
        case .object(let counts)?:
            self.unread = try Self.count(counts, "unread")
            self.missedCalls = try Self.count(counts, "missed_calls")
        default:
            throw MatrixError(.badJSON, "counts is of invalid type")
        }
    }

    private static func device(_ value: JSONValue) throws(MatrixError) -> Device {
        guard case .object(let fields) = value else { throw MatrixError(.badJSON, "Device with missing or non-string app_id") }
        func field(_ name: String) -> JSONValue? { fields.last { $0.0 == name }?.1 }
        guard case .string(let appID)? = field("app_id") else { throw MatrixError(.badJSON, "Device with missing or non-string app_id") }
        guard case .string(let pushkey)? = field("pushkey") else { throw MatrixError(.badJSON, "Device with missing or non-string pushkey") }
        var timestamp: Int64?
        switch field("pushkey_ts") {
        case nil, .null?: break
        case .number(let number)? where Int64(exactly: number) != nil: timestamp = Int64(exactly: number)
        default: throw MatrixError(.badJSON, "pushkey_ts is of invalid type")
        }
        var data: [(String, JSONValue)] = []
        switch field("data") {
        case nil, .null?: break
        case .object(let pairs)?: data = pairs.filter { $0.0 != "url" }
        default: throw MatrixError(.badJSON, "data is of invalid type")
        }
        var tweaks: [(String, JSONValue)] = []
        switch field("tweaks") {
        case nil, .null?: break
        case .object(let pairs)?: tweaks = pairs
        default: throw MatrixError(.badJSON, "tweaks is of invalid type")
        }
        switch tweaks.last(where: { $0.0 == "sound" })?.1 {
        case nil, .string?, .null?: break
        default: throw MatrixError(.badJSON, "sound is of invalid type")
        }
        return Device(appID: appID, pushkey: pushkey, pushkeyTimestamp: timestamp, data: data, tweaks: tweaks, raw: value)
    }

    private static func count(_ counts: [(String, JSONValue)], _ name: String) throws(MatrixError) -> Int? {
        switch counts.last(where: { $0.0 == name })?.1 {
        case nil, .null?: return nil
        case .number(let number)?:
            guard let exact = Int(exactly: number) else { throw MatrixError(.badJSON, "\(name) is of invalid type") }
            return exact
        default: throw MatrixError(.badJSON, "\(name) is of invalid type")
        }
    }
}
