import HeraldCore

extension GorushPushRequest {
    /// Decodes and checks a request body the way gorush's push handler does (gorush-api.md §2.1):
    /// anything that is not the expected JSON, including one field of the wrong type, is
    /// "Missing notifications field."; an empty list and too many entries have their own answers.
    /// Herald's own caps follow: tokens per entry and targets per request, so that one request
    /// cannot hold unbounded memory while it is delivered.
    public static func decode(_ body: [UInt8], limits: GorushRequestLimits) throws(GorushError) -> [GorushNotification] {
        guard let request = try? JSONReader.read(body, { reader throws(JSONReadError) in try GorushPushRequest(reading: &reader) }),
            let notifications = request.notifications
        else { throw .missingNotifications }
        guard !notifications.isEmpty else { throw .emptyNotifications }
        guard notifications.count <= limits.notifications else {
            throw .tooManyNotifications(notifications.count, limit: limits.notifications)
        }
        var targets = 0
        for (index, entry) in notifications.enumerated() {
            let tokens = entry.tokens?.count ?? 0
            guard tokens <= limits.tokens else { throw .tooManyTokens(tokens, notification: index, limit: limits.tokens) }
            targets += entry.targetCount
        }
        guard targets <= limits.targets else { throw .tooManyTargets(targets, limit: limits.targets) }
        return notifications
    }

    /// A `null` entry is a type error, as it was for `JSONDecoder`; unknown fields are skipped.
    init(reading reader: inout JSONReader) throws(JSONReadError) {
        try reader.readObject { reader, key throws(JSONReadError) in
            guard key == "notifications" else {
                try reader.skipValue()
                return
            }
            self.notifications = try reader.readOptional { reader throws(JSONReadError) in
                var entries: [GorushNotification] = []
                try reader.readArray { reader throws(JSONReadError) in entries.append(try GorushNotification(reading: &reader)) }
                return entries
            }
        }
    }
}

extension GorushNotification {
    /// One entry of `notifications`, by gorush's JSON field names; `null` leaves a field unset.
    init(reading reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readObject { reader, key throws(JSONReadError) in
            switch key {
            // Common
            case "notif_id": self.notifID = try reader.readOptional { r throws(JSONReadError) in try r.readString() }
            case "tokens": self.tokens = try reader.readOptional { r throws(JSONReadError) in try r.readStrings() }
            case "to": self.to = try reader.readOptional { r throws(JSONReadError) in try r.readString() }
            case "platform": self.platform = try reader.readOptional { r throws(JSONReadError) in try r.readInt() }
            case "message": self.message = try reader.readOptional { r throws(JSONReadError) in try r.readString() }
            case "title": self.title = try reader.readOptional { r throws(JSONReadError) in try r.readString() }
            case "image": self.image = try reader.readOptional { r throws(JSONReadError) in try r.readString() }
            case "topic": self.topic = try reader.readOptional { r throws(JSONReadError) in try r.readString() }
            case "priority": self.priority = try reader.readOptional { r throws(JSONReadError) in try r.readString() }
            case "content_available": self.contentAvailable = try reader.readOptional { r throws(JSONReadError) in try r.readBool() }
            case "mutable_content": self.mutableContent = try reader.readOptional { r throws(JSONReadError) in try r.readBool() }
            case "sound": self.sound = try reader.readOptional { r throws(JSONReadError) in try r.readValue() }
            case "data": self.data = try reader.readOptional { r throws(JSONReadError) in try r.readDictionary() }
            case "retry": self.retry = try reader.readOptional { r throws(JSONReadError) in try r.readInt() }
            // iOS
            case "expiration": self.expiration = try reader.readOptional { r throws(JSONReadError) in try r.readInt64() }
            case "apns_id": self.apnsID = try reader.readOptional { r throws(JSONReadError) in try r.readString() }
            case "collapse_id": self.collapseID = try reader.readOptional { r throws(JSONReadError) in try r.readString() }
            case "push_type": self.pushType = try reader.readOptional { r throws(JSONReadError) in try r.readString() }
            case "badge": self.badge = try reader.readOptional { r throws(JSONReadError) in try r.readInt() }
            case "category": self.category = try reader.readOptional { r throws(JSONReadError) in try r.readString() }
            case "thread-id": self.threadID = try reader.readOptional { r throws(JSONReadError) in try r.readString() }
            case "url-args": self.urlArgs = try reader.readOptional { r throws(JSONReadError) in try r.readStrings() }
            case "alert": self.alert = try reader.readOptional { r throws(JSONReadError) in try r.readDictionary() }
            case "production": self.production = try reader.readOptional { r throws(JSONReadError) in try r.readBool() }
            case "development": self.development = try reader.readOptional { r throws(JSONReadError) in try r.readBool() }
            case "name": self.name = try reader.readOptional { r throws(JSONReadError) in try r.readString() }
            case "volume": self.volume = try reader.readOptional { r throws(JSONReadError) in try r.readDouble() }
            case "interruption_level": self.interruptionLevel = try reader.readOptional { r throws(JSONReadError) in try r.readString() }
            case "content-state": self.contentState = try reader.readOptional { r throws(JSONReadError) in try r.readDictionary() }
            case "stale-date": self.staleDate = try reader.readOptional { r throws(JSONReadError) in try r.readInt64() }
            case "dismissal-date": self.dismissalDate = try reader.readOptional { r throws(JSONReadError) in try r.readInt64() }
            case "event": self.event = try reader.readOptional { r throws(JSONReadError) in try r.readString() }
            case "timestamp": self.timestamp = try reader.readOptional { r throws(JSONReadError) in try r.readInt64() }
            case "attributes-type": self.attributesType = try reader.readOptional { r throws(JSONReadError) in try r.readString() }
            case "attributes": self.attributes = try reader.readOptional { r throws(JSONReadError) in try r.readDictionary() }
            case "relevance-score": self.relevanceScore = try reader.readOptional { r throws(JSONReadError) in try r.readDouble() }
            // Android (FCM HTTP v1 objects, passed through)
            case "notification": self.fcmNotification = try reader.readOptional { r throws(JSONReadError) in try r.readValue() }
            case "android": self.android = try reader.readOptional { r throws(JSONReadError) in try r.readValue() }
            case "apns": self.apns = try reader.readOptional { r throws(JSONReadError) in try r.readValue() }
            case "webpush": self.webpush = try reader.readOptional { r throws(JSONReadError) in try r.readValue() }
            case "fcm_options": self.fcmOptions = try reader.readOptional { r throws(JSONReadError) in try r.readValue() }
            case "condition": self.condition = try reader.readOptional { r throws(JSONReadError) in try r.readString() }
            case "time_to_live": self.timeToLive = try reader.readOptional { r throws(JSONReadError) in try r.readInt64() }
            default: try reader.skipValue()
            }
        }
    }
}
