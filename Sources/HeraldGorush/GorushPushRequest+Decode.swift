import Foundation

extension GorushPushRequest {
    /// Decodes and checks a request body the way gorush's push handler does (gorush-api.md §2.1):
    /// anything that is not the expected JSON, including one field of the wrong type, is
    /// "Missing notifications field."; an empty list and too many entries have their own answers.
    static func decode(_ body: [UInt8], maximumNotifications: Int) throws(GorushError) -> [GorushNotification] {
        guard let request = try? JSONDecoder().decode(GorushPushRequest.self, from: Data(body)),
            let notifications = request.notifications
        else { throw .missingNotifications }
        guard !notifications.isEmpty else { throw .emptyNotifications }
        guard notifications.count <= maximumNotifications else {
            throw .tooManyNotifications(notifications.count, limit: maximumNotifications)
        }
        return notifications
    }
}
