public import Foundation
public import HeraldCore

/// Pushes delivered after a front door has answered its client, by tasks this queue owns, so
/// they finish (or reach their deadline) before the node stops. At most `limit` pushes wait or
/// run at once; beyond that the caller is refused and answers its client in its own protocol's
/// terms.
///
/// With a journal, a push is written to it before `accept` returns and forgotten when its
/// delivery ends, and `run()` first resumes what an earlier process of the node left there:
/// an acknowledged push survives a crash.
public final class DeliveryQueue: Sendable {
    /// Where accepted pushes are kept until they end, and what a restart does with them.
    public struct Durability: Sendable {
        public var journal: any AcceptedWorkJournal
        /// The name a restart finds this queue's pushes by (the front door's).
        public var owner: String
        /// How long after acceptance a push is still delivered when a restart finds it; a push
        /// whose own expiration comes sooner is kept until then.
        public var maximumAge: Duration
        /// UNIX time now.
        public var now: @Sendable () -> Date
        /// Told, at `run()`, how many pushes were resumed and which had expired (they are not
        /// delivered).
        public var resumed: @Sendable (_ count: Int, _ expired: [PushNotification]) -> Void

        public init(
            journal: any AcceptedWorkJournal,
            owner: String,
            maximumAge: Duration,
            now: @escaping @Sendable () -> Date = { Date() },
            resumed: @escaping @Sendable (_ count: Int, _ expired: [PushNotification]) -> Void = { _, _ in }
        ) {
            self.journal = journal
            self.owner = owner
            self.maximumAge = maximumAge
            self.now = now
            self.resumed = resumed
        }
    }

    /// Resumed pushes go out in batches of at most this many.
    static let resumeBatch = 100

    private struct Job: Sendable {
        var pushes: [PushNotification]
        var ids: [UInt64]
    }

    private let pending: PendingLimit
    private let durability: Durability?
    private let deliver: @Sendable ([PushNotification]) async -> Void
    private let stream: AsyncStream<Job>
    private let continuation: AsyncStream<Job>.Continuation

    /// `deliver` sends one accepted batch and returns when every push in it has ended.
    public init(limit: Int = 8192, durability: Durability? = nil, deliver: @escaping @Sendable ([PushNotification]) async -> Void) {
        self.pending = PendingLimit(limit)
        self.durability = durability
        self.deliver = deliver
        (self.stream, self.continuation) = AsyncStream.makeStream(of: Job.self)
    }

    public var limit: Int { self.pending.limit }

    /// Pushes accepted and not yet finished.
    public var pendingCount: Int { self.pending.count }

    /// Accepts every push of `pushes`, delivered together, or none: `false` when they would
    /// pass the limit, the journal cannot write them, or the queue has finished.
    public func accept(_ pushes: [PushNotification]) async -> Bool {
        await self.accept(each: [pushes])[0]
    }

    /// Accepts each batch of `batches` whole or not at all, as `accept(_:)` does, with one journal
    /// write for all of them: a request carrying several batches pays one commit, not one each.
    public func accept(each batches: [[PushNotification]]) async -> [Bool] {
        var taken = batches.map { $0.isEmpty || self.pending.acquire($0.count) }
        let kept = batches.indices.filter { taken[$0] && !batches[$0].isEmpty }
        var ids: [[UInt64]] = batches.map { _ in [] }
        if let durability = self.durability, !kept.isEmpty {
            let now = durability.now()
            let works = kept.flatMap { batches[$0].map { Self.work($0, owner: durability.owner, now: now, maximumAge: durability.maximumAge) } }
            guard let recorded = try? await durability.journal.record(works) else {
                for index in kept {
                    self.pending.release(batches[index].count)
                    taken[index] = false
                }
                return taken
            }
            var next = recorded[...]
            for index in kept {
                ids[index] = Array(next.prefix(batches[index].count))
                next = next.dropFirst(batches[index].count)
            }
        }
        for index in kept where !self.enqueue(Job(pushes: batches[index], ids: ids[index])) {
            // Refused, so not acknowledged: the caller's client sends it again.
            self.durability?.journal.finished(ids[index])
            self.pending.release(batches[index].count)
            taken[index] = false
        }
        return taken
    }

    private func enqueue(_ job: Job) -> Bool {
        if case .terminated = self.continuation.yield(job) { return false }
        return true
    }

    /// The journal's form of `push`: kept until its expiration or `maximumAge`, whichever
    /// comes first. A "now or never" push (expiration 0) is not worth delivering after a restart.
    static func work(_ push: PushNotification, owner: String, now: Date, maximumAge: Duration) -> AcceptedWork {
        let seconds = now.timeIntervalSince1970
        var deadline = Int64(seconds) + max(maximumAge.components.seconds, 1)
        if let expiration = push.expiration { deadline = min(deadline, expiration > 0 ? expiration : Int64(seconds)) }
        return AcceptedWork(owner: owner, acceptedAt: Int64(seconds * 1000), deadline: deadline, item: .push(push))
    }

    /// Resumes what an earlier process left, then runs accepted work until `finish()`, then
    /// waits for what is still running.
    public func run() async {
        self.resume()
        await self.consume()
    }

    /// Delivers what an earlier process left and returns: for an owner with no queue of its own
    /// this run.
    public func runResumedOnly() async {
        self.resume()
        self.finish()
        await self.consume()
    }

    private func consume() async {
        await withDiscardingTaskGroup { group in
            for await job in self.stream {
                group.addTask {
                    await self.deliver(job.pushes)
                    // Cancelled (a shutdown past its deadline), the pushes may not have ended:
                    // the journal keeps them for the next start.
                    if !Task.isCancelled { self.durability?.journal.finished(job.ids) }
                    self.pending.release(job.pushes.count)
                }
            }
        }
    }

    /// Queues the journal's pushes of this owner from an earlier process, past the limit: they
    /// were acknowledged. Those past their deadline end here, reported as expired.
    private func resume() {
        guard let durability = self.durability else { return }
        let found: [JournaledWork]
        do {
            found = try durability.journal.unfinished(owner: durability.owner)
        } catch {
            durability.resumed(0, [])
            return
        }
        let now = Int64(durability.now().timeIntervalSince1970)
        var live: [(id: UInt64, push: PushNotification)] = []
        var expired: [PushNotification] = []
        var ended: [UInt64] = []
        for entry in found {
            guard case .push(let push) = entry.work.item else {
                ended.append(entry.id)
                continue
            }
            if entry.work.deadline < now {
                expired.append(push)
                ended.append(entry.id)
            } else {
                live.append((entry.id, push))
            }
        }
        durability.journal.finished(ended)
        var start = live.startIndex
        while start < live.endIndex {
            let batch = live[start..<min(start + Self.resumeBatch, live.endIndex)]
            start = batch.endIndex
            self.pending.take(batch.count)
            if !self.enqueue(Job(pushes: batch.map(\.push), ids: batch.map(\.id))) {
                // Stopping before it began: the journal keeps them for the next start.
                self.pending.release(batch.count)
            }
        }
        durability.resumed(live.count, expired)
    }

    /// Stops accepting work; `run()` returns when the accepted work is done.
    public func finish() {
        self.continuation.finish()
    }
}
