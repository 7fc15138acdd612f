import Foundation

extension GorushPushRequest {
    /// Decodes and checks a request body the way gorush's push handler does (gorush-api.md §2.1):
    /// anything that is not the expected JSON, including one field of the wrong type, is
    /// "Missing notifications field."; an empty list and too many entries have their own answers.
    /// Herald's own caps follow: tokens per entry and targets per request, so that one request
    /// cannot hold unbounded memory while it is delivered.
    public static func decode(_ body: [UInt8], limits: GorushRequestLimits) throws(GorushError) -> [GorushNotification] {
        guard let request = try? JSONDecoder().decode(GorushPushRequest.self, from: Data(body)),
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
}
