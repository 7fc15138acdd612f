import Foundation
import HeraldCore
public import HeraldDelivery
public import Logging

/// Sends Status pushes through Herald's own delivery pool, with the provider requests gorush
/// would have made from status-go's POST (status.md §9), so devices see what they saw before.
///
/// Unlike gorush, an FCM registration with a non-empty `apn_topic` is not also published to an
/// FCM topic of that name: that would reach every device subscribed to it.
public struct StatusPoolDelivery: StatusPushDelivery {
    let pool: DeliveryPool
    let logger: Logger

    public init(pool: DeliveryPool, logger: Logger) {
        self.pool = pool
        self.logger = logger
    }

    public func deliver(_ pushes: [StatusPush]) async -> Bool {
        await withTaskGroup(of: Void.self) { group in
            for push in pushes {
                group.addTask {
                    let notification = self.notification(for: push)
                    do {
                        // Outcomes reach metrics, feedback and the dead-token handler in the pool;
                        // status-go's reports do not depend on them.
                        _ = try await self.pool.send(notification)
                    } catch {
                        self.logger.warning("status push not admitted", metadata: ["id": "\(notification.id)", "error": "\(error)"])
                    }
                }
            }
        }
        return true
    }

    func notification(for push: StatusPush) -> PushNotification {
        var device = push.device
        if device.app == nil, !push.topic.isEmpty {
            device.app = self.pool.appID(forTopic: push.topic)
        }
        let data: [(String, JSONValue)] = [
            ("chatId", .string(push.chatID)),
            ("encryptedMessage", .string(push.encryptedMessage)),
            ("publicKey", .string(push.publicKey)),
        ]
        let payload: JSONValue
        switch device.platform {
        case .fcm:
            payload = .object([("data", .object(data)), ("notification", .object([("body", .string(push.message))]))])
        default:
            // gorush's APNs body without a title: a string alert, custom keys beside `aps`.
            payload = .object([("aps", .object([("alert", .string(push.message))]))] + data)
        }
        return PushNotification(
            id: UUID().uuidString.lowercased(),
            device: device,
            payload: payload.bytes,
            pushType: device.platform == .apns ? "alert" : nil,
            registration: push.registration
        )
    }
}
