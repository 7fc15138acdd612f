import HeraldCore

/// An FCM message without its target, checked and written once for every device a push goes to:
/// the payload's fields (a `condition` among them), with the notification's priority, expiration
/// and collapse id in `android` unless the payload sets them itself (fcm.md §3). A gorush entry's
/// ten tokens are ten pushes of one payload; each used to parse and write it again.
struct FCMMessage: Sendable {
    /// The members as JSON without the braces (`"data":{…},"android":{…}`); empty for none.
    let members: [UInt8]
    /// Whether the payload names a `condition`, the message's target when the device has none.
    let hasCondition: Bool
    /// The bytes FCM counts against its limit: the message written without its targets.
    let contentSize: Int

    /// What the message was made from, to tell whether another push can share it.
    private let payload: [UInt8]
    private let priority: PushNotification.Priority?
    private let expiration: Int64?
    private let collapseID: String?
    private let now: Int64

    /// Checks `notification`'s payload and options as FCM would, refusing with its error code.
    /// `now` (UNIX seconds) turns the expiration into a TTL.
    init(_ notification: PushNotification, now: Int64) throws(FCMRequestError) {
        var message: [(String, JSONValue)]
        if notification.payload.isEmpty {
            message = []
        } else {
            guard case .object(let fields)? = try? JSONValue(parsing: notification.payload) else {
                throw FCMRequestError("message", "the payload must be a JSON object of FCM message fields")
            }
            message = fields
        }
        for target in ["token", "topic"] where message.contains(where: { $0.0 == target }) {
            throw FCMRequestError("message.\(target)", "the target comes from the device, not the payload")
        }
        try FCMRequest.checkData(message.first { $0.0 == "data" }?.1, field: "message.data")
        var android: [(String, JSONValue)] = []
        if let value = message.first(where: { $0.0 == "android" })?.1 {
            guard case .object(let fields) = value else { throw FCMRequestError("message.android", "must be an object") }
            android = fields
            try FCMRequest.checkData(android.first { $0.0 == "data" }?.1, field: "message.android.data")
        }
        if let priority = notification.priority, !android.contains(where: { $0.0 == "priority" }) {
            // FCM has no "never wake" level: both lower APNs levels become NORMAL.
            android.append(("priority", .string(priority == .immediate ? "HIGH" : "NORMAL")))
        }
        if let expiration = notification.expiration, !android.contains(where: { $0.0 == "ttl" }) {
            guard expiration >= 0 else {
                throw FCMRequestError("message.android.ttl", "expiration must be a UNIX time in seconds, or 0")
            }
            // APNs' expiration 0 means "now or never", which is FCM's ttl "0s" too. Compared
            // before subtracting, so no value can overflow.
            let ttl: Int64 = expiration == 0 || expiration <= now ? 0 : min(expiration - max(now, 0), FCMRequest.maximumTTL)
            android.append(("ttl", .string("\(ttl)s")))
        }
        if let collapseID = notification.collapseID, !android.contains(where: { $0.0 == "collapse_key" || $0.0 == "collapseKey" }) {
            android.append(("collapse_key", .string(collapseID)))
        }
        message.removeAll { $0.0 == "android" }
        if !android.isEmpty { message.append(("android", .object(android))) }

        let written = JSONValue.object(message).bytes
        self.members = Array(written.dropFirst().dropLast())
        self.hasCondition = message.contains { $0.0 == "condition" }
        self.contentSize = FCMRequest.sizeWithoutTargets(of: message, serialized: written.count)
        self.payload = notification.payload
        self.priority = notification.priority
        self.expiration = notification.expiration
        self.collapseID = notification.collapseID
        self.now = now
    }

    /// Whether `notification`'s message, at `now`, is this one.
    func fits(_ notification: PushNotification, now: Int64) -> Bool {
        // The TTL depends on the second only when there is an expiration to count down to.
        (self.now == now || notification.expiration == nil) && notification.priority == self.priority
            && notification.expiration == self.expiration && notification.collapseID == self.collapseID
            && notification.payload == self.payload
    }
}
