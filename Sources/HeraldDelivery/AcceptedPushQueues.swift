public import CoreMetrics
public import Foundation
public import HeraldCore
public import Logging
import Synchronization

/// The node's queues of pushes acknowledged before delivery, one per front door that answers
/// first, all kept in one journal on the node's disk (or in memory only, without one). It
/// counts what restarts resume, reports what they find expired as failed pushes, and delivers
/// what a front door no longer running left behind.
public final class AcceptedPushQueues: Sendable {
    public static let resumedMetric = "herald_queue_resumed_total"
    public static let expiredMetric = "herald_queue_expired_total"
    public static let depthMetric = "herald_queue_entries"
    public static let ageMetric = "herald_queue_oldest_age_seconds"

    public let journal: (any AcceptedWorkJournal)?
    let providers: AppProviders
    let maximumAge: Duration
    let metrics: any MetricsFactory
    let logger: Logger
    let now: @Sendable () -> Date
    /// Whether a feedback webhook runs to post the events the journal keeps for it.
    let feedbackConfigured: Bool
    private let owners = Mutex<Set<String>>([])
    private let depth: Gauge
    private let age: Gauge

    public init(
        journal: (any AcceptedWorkJournal)?,
        providers: AppProviders,
        maximumAge: Duration,
        metrics: any MetricsFactory,
        logger: Logger,
        feedbackConfigured: Bool = false,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.feedbackConfigured = feedbackConfigured
        self.journal = journal
        self.providers = providers
        self.maximumAge = maximumAge
        self.metrics = metrics
        self.logger = logger
        self.now = now
        self.depth = Gauge(label: Self.depthMetric, factory: metrics)
        self.age = Gauge(label: Self.ageMetric, factory: metrics)
    }

    /// A queue for `owner`'s pushes; `deliver` sends one batch and returns when each has ended.
    /// A restart hands the queue of the same owner what this one left.
    public func queue(owner: String, limit: Int, deliver: @escaping @Sendable ([PushNotification]) async -> Void) -> DeliveryQueue {
        self.owners.withLock { _ = $0.insert(owner) }
        return DeliveryQueue(limit: limit, durability: self.durability(owner: owner), deliver: deliver)
    }

    func durability(owner: String) -> DeliveryQueue.Durability? {
        guard let journal = self.journal else { return nil }
        let resumed = Counter(label: Self.resumedMetric, dimensions: [("owner", owner)], factory: self.metrics)
        let expired = Counter(label: Self.expiredMetric, dimensions: [("owner", owner)], factory: self.metrics)
        let providers = self.providers
        let logger = self.logger
        return DeliveryQueue.Durability(journal: journal, owner: owner, maximumAge: self.maximumAge, now: self.now) { count, gone in
            resumed.increment(by: count)
            expired.increment(by: gone.count)
            for push in gone {
                providers.reportUndelivered(push, outcome: .failed(DeliveryFailure(.deadlineExceeded, "expired in the queue before a restart delivered it")))
            }
            if count > 0 || !gone.isEmpty {
                logger.notice("resumed the pushes an earlier run accepted", metadata: ["owner": "\(owner)", "resumed": "\(count)", "expired": "\(gone.count)"])
            }
        }
    }

    /// Delivers, straight through the providers, the pushes of owners that have no queue in this
    /// run (a front door turned off since): they were acknowledged all the same.
    public func resumeUnclaimed() async {
        guard let journal = self.journal else { return }
        let running = self.owners.withLock { $0 }
        let left: Set<String>
        do {
            left = try journal.unfinishedOwners().subtracting(running).subtracting([FeedbackWebhook.journalOwner])
        } catch {
            self.logger.error("the queue journal cannot be read", metadata: ["error": "\(error)"])
            return
        }
        if !self.feedbackConfigured, let events = try? journal.unfinished(owner: FeedbackWebhook.journalOwner), !events.isEmpty {
            // Their webhook is gone from the configuration: there is nowhere to post them.
            journal.finished(events.map(\.id))
            self.logger.warning("dropped the feedback events an earlier run left: no feedback.url is configured now", metadata: ["events": "\(events.count)"])
        }
        for owner in left.sorted() {
            let queue = DeliveryQueue(limit: 1, durability: self.durability(owner: owner)) { pushes in
                _ = await self.providers.send(all: pushes)
            }
            await queue.runResumedOnly()
        }
    }

    /// Sets the depth and age gauges; called when metrics are scraped.
    public func sampleGauges() {
        guard let journal = self.journal, let (entries, oldest) = try? journal.depth() else { return }
        self.depth.record(entries)
        let nowMilliseconds = Int64(self.now().timeIntervalSince1970 * 1000)
        self.age.record(oldest.map { Double(max(nowMilliseconds - $0, 0)) / 1000 } ?? 0)
    }
}
