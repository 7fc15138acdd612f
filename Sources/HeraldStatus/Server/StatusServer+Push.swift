import SwiftProtobuf
import Foundation
import HeraldCore
import HeraldStore
import Logging

extension StatusServer {
    /// status-go `HandlePushNotificationRequest`: dedup by the request's message id, one report
    /// per notification, one delivery hand-over for the whole request, then the response.
    /// Returns `nil` when the protocol sends no response.
    func handlePushRequest(_ message: ApplicationMessage) async throws(StatusError) -> WakuMessage? {
        guard let signer = message.signer else {
            throw StatusError(.invalidApplicationMessage, "a push request without a signer cannot be answered")
        }
        let request: Protobuf_PushNotificationRequest
        do {
            request = try Protobuf_PushNotificationRequest(serializedBytes: message.payload)
        } catch {
            throw StatusError(.ignored, "the push request does not decode: \(error)")
        }
        // Recorded before anything else, so a request that fails later is never handled twice.
        guard try await self.claim(message.id, in: self.configuration.pushRequestMarkers) else { throw StatusError(.duplicate, "push request \(Hex.encode(message.id)) was already handled") }
        guard !request.messageID.isEmpty else { throw StatusError(.ignored, "the push request has no message_id") }

        var response = Protobuf_PushNotificationResponse()
        response.messageID = request.messageID
        var pushes: [StatusPush] = []
        var lookups: [LookupKey: Lookup] = [:]
        for notification in request.requests {
            if let report = self.report(on: notification, lookups: &lookups, pushes: &pushes) {
                response.reports.append(report)
            }
        }
        if !pushes.isEmpty {
            guard await self.delivery.deliver(pushes) else {
                throw StatusError(.deliveryFailed, "the pushes of request \(Hex.encode(message.id)) could not be handed over")
            }
        }
        self.metrics.answered("push", result: "success")
        return try self.reply(.pushNotificationResponse, response, to: signer)
    }

    private struct LookupKey: Hashable {
        let publicKey: Data
        let installationID: String
    }

    /// A registration read and decoded once per request, however many notifications name it.
    private enum Lookup {
        case registered(Registration, Protobuf_PushNotificationRegistration, PushFilter)
        case notRegistered
        case failed
    }

    private func lookup(_ notification: Protobuf_PushNotification) -> Lookup {
        do {
            // A key no registration can have is simply not registered.
            guard let key = try? RegistrationKey(scope: .status, subject: Array(notification.publicKey), installationID: notification.installationID),
                let registration = try self.registry.record(for: key)?.registration
            else { return .notRegistered }
            let stored = try Protobuf_PushNotificationRegistration(serializedBytes: registration.attributes)
            return .registered(registration, stored, PushFilter(stored))
        } catch {
            self.logger.warning("status registration lookup failed", metadata: ["error": "\(error)"])
            return .failed
        }
    }

    /// The report for one notification in status-go's order of checks (status.md §7.2), adding
    /// the push to `pushes` when it goes out; `nil` for a notification of type 0, which gets none.
    private func report(
        on notification: Protobuf_PushNotification,
        lookups: inout [LookupKey: Lookup],
        pushes: inout [StatusPush]
    ) -> Protobuf_PushNotificationReport? {
        var report = Protobuf_PushNotificationReport()
        report.publicKey = notification.publicKey
        report.installationID = notification.installationID
        let key = LookupKey(publicKey: notification.publicKey, installationID: notification.installationID)
        let lookup = lookups[key] ?? self.lookup(notification)
        lookups[key] = lookup
        if case .failed = lookup {
            report.error = .unknownErrorType
            return report
        }
        guard notification.type.rawValue != 0 else { return nil }
        guard case .registered(let registration, let stored, let filter) = lookup else {
            report.error = .notRegistered
            return report
        }
        guard stored.accessToken == notification.accessToken else {
            report.error = .wrongToken
            return report
        }
        report.success = true
        // Herald also holds back devices that asked not to be pushed or whose token is dead,
        // reported like any other filtered push.
        guard registration.enabled, filter.allows(notification) else { return report }
        pushes.append(
            StatusPush(
                registration: registration.key,
                device: registration.device,
                gorushPlatform: [1, 2].contains(stored.tokenType.rawValue) ? stored.tokenType.rawValue : 0,
                message: PushFilter.message(for: notification.type),
                encryptedMessage: "0x" + Hex.encode(notification.message),
                chatID: "0x" + Hex.encode(notification.chatID),
                publicKey: "0x" + Hex.encode(notification.publicKey),
                topic: stored.apnTopic
            )
        )
        return report
    }
}
