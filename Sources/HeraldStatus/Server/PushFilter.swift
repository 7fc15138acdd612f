import SwiftProtobuf
import Foundation

/// Whether a registration lets a notification through (status-go `server.go`
/// `buildPushNotificationReport`, status.md §7.3). Lists hold SHAKE-256 digests compared byte for
/// byte. A filtered notification is still reported as a success, so the sender cannot learn who
/// blocked or muted them.
enum PushFilter {
    static func allows(_ notification: Protobuf_PushNotification, by registration: Protobuf_PushNotificationRegistration) -> Bool {
        let authorBlocked = registration.blockedChatList.contains(notification.author)
        switch notification.type {
        case .message:
            return !registration.blockedChatList.contains(notification.chatID)
                && !registration.mutedChatList.contains(notification.chatID)
                && !authorBlocked
        case .mention:
            // The muted list is not consulted: clients leave muted chats out of the allowed list.
            return !registration.blockMentions
                && registration.allowedMentionsChatList.contains(notification.chatID)
                && !authorBlocked
        case .requestToJoinCommunity:
            return !authorBlocked
        default:
            // status-go has no rule for other types, so they are pushed (with the mention text).
            return true
        }
    }

    /// The alert text gorush receives for each type.
    static func message(for type: Protobuf_PushNotification.PushNotificationType) -> String {
        switch type {
        case .message: "You have a new message"
        case .requestToJoinCommunity: "Someone requested to join a community you are an admin of"
        default: "Someone mentioned you"
        }
    }
}
