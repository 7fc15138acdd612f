public import HeraldCore

extension GorushNotification {
    /// gorush's Android limit on targets per entry (gorush-api.md §2.6).
    static let maximumAndroidTokens = 500
    /// FCM's longest time to live, four weeks.
    static let maximumTTL: Int64 = 2_419_200

    /// Why an Android entry cannot be sent, in gorush's words (its `CheckMessage`); gorush finds
    /// these after answering, Herald before, so the caller sees them.
    public var androidProblem: String? {
        let tokens = self.androidTokens
        if tokens.isEmpty, (self.topic ?? "").isEmpty, (self.condition ?? "").isEmpty {
            return "the message must specify at least one registration ID"
        }
        if tokens.count > Self.maximumAndroidTokens {
            return "the message may specify at most \(Self.maximumAndroidTokens) registration IDs"
        }
        return nil
    }

    /// The FCM notifications of an Android entry: one per token, plus one for `topic` and one
    /// for `condition`, each carrying the message gorush would build (gorush-api.md §2.3, §2.5).
    public func fcmNotifications() -> [PushNotification] {
        let payload = self.fcmPayload()
        let priority = self.pushPriority
        func push(_ device: Device, payload: [UInt8]) -> PushNotification {
            PushNotification(id: Self.newID(), device: device, payload: payload, priority: priority, callerReference: self.notifID)
        }
        var pushes = self.androidTokens.map { push(Device(platform: .fcm, token: $0), payload: payload) }
        if let topic = self.topic, !topic.isEmpty {
            pushes.append(push(Device(platform: .fcm, token: "", topic: topic), payload: payload))
        }
        if let condition = self.condition, !condition.isEmpty {
            pushes.append(push(Device(platform: .fcm, token: ""), payload: self.fcmPayload(condition: condition)))
        }
        return pushes
    }

    /// The `message` fields other than the target. `data` values that are not strings become
    /// their JSON text, as gorush sends them; `title`, `message` and `image` build `notification`
    /// unless one is given.
    func fcmPayload(condition: String? = nil) -> [UInt8] {
        var message: [(String, JSONValue)] = []
        if let condition { message.append(("condition", .string(condition))) }
        if let data = self.data, !data.isEmpty {
            let strings = data.sorted { $0.key < $1.key }.map { key, value -> (String, JSONValue) in
                if case .string = value { return (key, value) }
                return (key, .string(String(decoding: value.bytes, as: UTF8.self)))
            }
            message.append(("data", .object(strings)))
        }
        if let notification = self.fcmNotification, case .object(let fields) = notification, !fields.isEmpty {
            message.append(("notification", notification))
        } else {
            var fields: [(String, JSONValue)] = []
            if let title = self.title, !title.isEmpty { fields.append(("title", .string(title))) }
            if let body = self.message, !body.isEmpty { fields.append(("body", .string(body))) }
            if let image = self.image, !image.isEmpty { fields.append(("image", .string(image))) }
            if !fields.isEmpty { message.append(("notification", .object(fields))) }
        }
        var android: [(String, JSONValue)] = []
        if case .object(let fields)? = self.android { android = fields }
        if self.android == nil, case .string(let sound)? = self.sound, !sound.isEmpty {
            android.append(("notification", .object([("sound", .string(sound))])))
        }
        if let ttl = self.timeToLive, ttl >= 0, !android.contains(where: { $0.0 == "ttl" }) {
            // FCM refuses more than four weeks; gorush's legacy field allowed any number.
            android.append(("ttl", .string("\(min(ttl, Self.maximumTTL))s")))
        }
        if !android.isEmpty { message.append(("android", .object(android))) }
        if let apns = self.fcmAPNSConfig(hasNotification: message.contains { $0.0 == "notification" }) {
            message.append(("apns", apns))
        }
        if let webpush = self.webpush { message.append(("webpush", webpush)) }
        if let options = self.fcmOptions { message.append(("fcm_options", options)) }
        return JSONValue.object(message).bytes
    }

    /// The `apns` block FCM forwards to iOS devices (gorush-api.md §2.3): gorush replaces it for
    /// `content_available` (a background push at priority 5 carrying the data) and, when there
    /// is a notification, for `mutable_content`; a string `sound` goes into its `aps`.
    private func fcmAPNSConfig(hasNotification: Bool) -> JSONValue? {
        var sound: [(String, JSONValue)] = []
        if case .string(let name)? = self.sound, !name.isEmpty { sound = [("sound", .string(name))] }
        if self.contentAvailable == true {
            var aps: [(String, JSONValue)] = [("content-available", .number(1))] + sound
            for (key, value) in (self.data ?? [:]).sorted(by: { $0.key < $1.key }) { aps.append((key, value)) }
            return .object([
                ("headers", .object([("apns-priority", .string("5"))])),
                ("payload", .object([("aps", .object(aps))])),
            ])
        }
        if self.mutableContent == true, hasNotification {
            return .object([("payload", .object([("aps", .object([("mutable-content", .number(1))] + sound))]))])
        }
        if let apns = self.apns { return apns }
        return sound.isEmpty ? nil : .object([("payload", .object([("aps", .object(sound))]))])
    }
}
