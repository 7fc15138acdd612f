import CoreMetrics
import Foundation
import HeraldCore
import HeraldDelivery
import HeraldStore
import HeraldTesting
import Logging
import Testing

/// A feedback event is written to the journal before it is queued: one the process did not post
/// before it died is posted by the next start, and forgotten once posted.
struct FeedbackJournalTests {
    @Test func anEventNotPostedBeforeARestartIsPostedByTheNextRun() async throws {
        try await withTemporaryDirectory { directory in
            let receiver = try await WebhookReceiver.start()
            do {
                let logger = Logger(label: "test")
                let configuration = FeedbackWebhook.Configuration(url: receiver.url)
                let first = try LMDBWorkJournal(storePath: directory, cipher: nil, logger: logger)
                // Never run: the process dies before it posts.
                let dying = FeedbackWebhook(configuration: configuration, metrics: NOOPMetricsHandler.instance, logger: logger, journal: first)
                let push = PushNotification(id: "5d0c2a61-0d0e-4c4f-9d8e-3f0c8a1b2c3d", device: Device(platform: .apns, token: "ab12"), payload: [])
                dying.pushFailed(FeedbackEvent(push, app: "demo", outcome: .deadToken(DeliveryFailure(.unregistered, "Unregistered"))))
                try await waitUntil("the event to be journaled", within: .seconds(60), observing: { try first.depth().entries }) { $0 == 1 }
                try await first.close()
                #expect(receiver.received.isEmpty)

                let second = try LMDBWorkJournal(storePath: directory, cipher: nil, logger: logger)
                let webhook = FeedbackWebhook(configuration: configuration, metrics: NOOPMetricsHandler.instance, logger: logger, journal: second)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { await webhook.run() }
                    let received = try await waitUntil("the left event to be posted", within: .seconds(60), observing: { receiver.received }) { !$0.isEmpty }
                    #expect(received.first?["id"] as? String == push.id)
                    #expect(received.first?["result"] as? String == "dead_token")
                    webhook.finish()
                    try await group.waitForAll()
                }
                try await waitUntil("the posted event to be forgotten", within: .seconds(60), observing: { try second.depth().entries }) { $0 == 0 }
                try await second.close()
            } catch {
                await receiver.stop()
                throw error
            }
            await receiver.stop()
        }
    }
}
