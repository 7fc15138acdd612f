import Foundation
import HeraldCore
public import HeraldDelivery
public import Logging

/// Sends Status pushes through Herald's own delivery pool, with the provider requests gorush
/// would have made from status-go's POST (status.md §9), so devices see what they saw before.
///
/// Unlike gorush, an FCM registration with a non-empty `apn_topic` is not also published to an
/// FCM topic of that name: that would reach every device subscribed to it.
///
/// Pushes are handed to a dispatcher and delivered after the answer, as gorush (async by default)
/// lets status-go answer at once: a slow provider delays neither the sender nor the next message.
/// The dispatcher keeps them in the node's journal until they end, so the answer survives a crash.
public struct StatusPoolDelivery: StatusPushDelivery {
    let providers: AppProviders
    let dispatcher: DeliveryQueue
    let logger: Logger

    public init(providers: AppProviders, dispatcher: DeliveryQueue, logger: Logger) {
        self.providers = providers
        self.dispatcher = dispatcher
        self.logger = logger
    }

    /// `false` when the dispatcher took none of the pushes (it is full, stopping, or its
    /// journal cannot write); it takes all of them or none.
    public func deliver(_ pushes: [StatusPush]) async -> Bool {
        let notifications = pushes.map(self.notification(for:))
        guard await self.dispatcher.accept(notifications) else {
            self.logger.warning("status pushes refused: delivery queue full or its journal unavailable", metadata: ["pushes": "\(notifications.count)"])
            return false
        }
        return true
    }

    /// Delivers a batch the dispatcher accepted. Outcomes reach metrics, feedback and the
    /// dead-token handler in the pool; status-go's reports do not depend on them.
    static func deliverAccepted(_ notifications: [PushNotification], providers: AppProviders, logger: Logger) async {
        for (notification, result) in zip(notifications, await providers.send(all: notifications)) {
            if case .failure(let error) = result {
                logger.warning("status push not admitted", metadata: ["id": "\(notification.id)", "error": "\(error)"])
            }
        }
    }

    func notification(for push: StatusPush) -> PushNotification {
        var device = push.device
        if device.app == nil, !push.topic.isEmpty {
            device.app = self.providers.appID(forTopic: push.topic)
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
            payload = APNSPayload(alert: .text(push.message), custom: data).json
        }
        return PushNotification(
            id: RandomUUID.lowercased(),
            device: device,
            payload: payload.bytes,
            pushType: device.platform == .apns ? "alert" : nil,
            registration: push.registration
        )
    }
}
