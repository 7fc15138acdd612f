import Foundation
import SwiftProtobuf

/// Whether a registration lets a notification through (status-go `server.go`
/// `buildPushNotificationReport`, status.md §7.3). Lists hold SHAKE-256 digests compared byte for
/// byte. A filtered notification is still reported as a success, so the sender cannot learn who
/// blocked or muted them.
///
/// Built once per registration and request: the lists become sets, so a request with many
/// notifications for one registration costs one decode and hashed lookups.
struct PushFilter {
    let blocked: Set<Data>
    let muted: Set<Data>
    let allowedMentions: Set<Data>
    let blockMentions: Bool

    init(_ registration: Protobuf_PushNotificationRegistration) {
        self.blocked = Set(registration.blockedChatList)
        self.muted = Set(registration.mutedChatList)
        self.allowedMentions = Set(registration.allowedMentionsChatList)
        self.blockMentions = registration.blockMentions
    }

    func allows(_ notification: Protobuf_PushNotification) -> Bool {
        let authorBlocked = self.blocked.contains(notification.author)
        switch notification.type {
        case .message:
            return !self.blocked.contains(notification.chatID) && !self.muted.contains(notification.chatID) && !authorBlocked
        case .mention:
            // The muted list is not consulted: clients leave muted chats out of the allowed list.
            return !self.blockMentions && self.allowedMentions.contains(notification.chatID) && !authorBlocked
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
