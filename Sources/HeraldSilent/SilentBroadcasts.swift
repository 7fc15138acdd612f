import Foundation
import HeraldCore
import HeraldStore
import Logging

/// Runs broadcasts: a walk over every registration of one service in key order, read a page at a
/// time, sending each a silent push at no more than `silent.broadcast-rate` a second with up to
/// `window` awaiting their answers. Every quarter second its progress and the cursor past the
/// pages fully answered are written to LMDB, so a node that restarts resumes there. The devices of
/// the pages in flight then (up to the window and a page) may get a second push: the per-device
/// limiter lives in memory and starts afresh. Dead tokens found on the way disable their registrations.
///
/// A broadcast runs on the node that was asked, and only that node knows it (`GET` and `DELETE`
/// elsewhere answer 404); it reads that node's view, which holds every registration of the
/// cluster.
public actor SilentBroadcasts {
    /// How many broadcasts run at once, how much of the node each may hold, how long a finished
    /// one stays readable.
    public struct Limits: Sendable, Hashable {
        /// Broadcasts running on this node at once; more are refused (429).
        public var running = 4
        /// Broadcasts of one service running at once: a second walk of the same devices only
        /// repeats the first.
        public var runningPerService = 1
        /// Pushes of one broadcast awaiting their answers at once: what a broadcast holds in
        /// memory grows with it (about 5 KB a push).
        public var window = 2048
        /// How long a finished broadcast stays readable, in the store only.
        public var retention: Duration = .seconds(7 * 86_400)

        public init() {}
    }

    /// Registrations read and pushed at once, at most: about a tenth of a second's worth at the
    /// broadcast's rate, so pacing is smooth and a restart repeats little.
    static let maximumBatchSize = 1024
    /// Pushes handed to the sender together, at most: those for one provider leave in one trip
    /// to a connection with one flush. Small beside the window, so answers keep coming in while
    /// more leave.
    static let sendBatchSize = 64
    /// How often progress and cursor are written while a broadcast runs.
    static let persistInterval: Duration = .milliseconds(250)
    /// Seconds a refused broadcast request waits before asking again.
    static let busyRetryAfter = 30

    nonisolated let view: any RegistryView
    nonisolated let markers: MessageMarkers
    nonisolated let sender: SilentSender
    nonisolated let metrics: SilentMetrics
    nonisolated let rate: Int
    nonisolated let limits: Limits
    nonisolated let batchSize: Int
    nonisolated let pacer: Pacer
    nonisolated let wallClock: @Sendable () -> Date
    nonisolated let logger: Logger
    /// The broadcasts walking on this node, with their latest progress; the others are read from
    /// the store, so a finished broadcast costs no memory.
    private var running: [String: SilentBroadcast] = [:]
    private var tasks: [String: Task<Void, Never>] = [:]
    private var isStopped = false

    init(
        view: any RegistryView,
        markers: MessageMarkers,
        sender: SilentSender,
        metrics: SilentMetrics,
        rate: Int,
        limits: Limits = Limits(),
        clock: any Clock<Duration>,
        wallClock: @escaping @Sendable () -> Date,
        logger: Logger
    ) {
        self.view = view
        self.markers = markers
        self.sender = sender
        self.metrics = metrics
        self.rate = max(rate, 1)
        self.limits = limits
        self.batchSize = min(Self.maximumBatchSize, max(rate / 10, 1), max(limits.window, 1))
        self.pacer = Pacer(clock)
        self.wallClock = wallClock
        self.logger = logger
    }

    /// Starts a broadcast to every registration of `service`.
    func start(service: String) async throws -> SilentBroadcast {
        if !self.isStopped { try self.admit(service: service) }
        var broadcast = SilentBroadcast(id: RandomUUID.lowercased(), service: service, startedAt: self.wallClock())
        broadcast.status = self.isStopped ? .cancelled : .running
        if !self.isStopped { self.running[broadcast.id] = broadcast }
        do {
            try await self.persist(broadcast)
        } catch {
            // Never started: it must not hold a place under the caps.
            self.running[broadcast.id] = nil
            throw error
        }
        if !self.isStopped { self.launch(broadcast.id) }
        self.logger.notice("silent broadcast started", metadata: ["broadcast": "\(broadcast.id)", "service": "\(service)"])
        return broadcast
    }

    /// Refuses a broadcast past the node's or the service's cap of running ones.
    private func admit(service: String) throws(SilentError) {
        let ofService = self.running.values.count(where: { $0.service == service })
        if ofService >= self.limits.runningPerService {
            self.metrics.refusedBroadcast(service: service)
            throw .busy(
                "\(ofService) broadcast\(ofService == 1 ? " is" : "s are") running for service '\(service)' (silent.max-running-broadcasts-per-service: \(self.limits.runningPerService)); ask again when \(ofService == 1 ? "it ends" : "one ends") or cancel it",
                retryAfter: Self.busyRetryAfter
            )
        }
        if self.running.count >= self.limits.running {
            self.metrics.refusedBroadcast(service: service)
            throw .busy(
                "\(self.running.count) broadcasts are running on this node (silent.max-running-broadcasts: \(self.limits.running)); ask again when one ends",
                retryAfter: Self.busyRetryAfter
            )
        }
    }

    /// Broadcasts walking now.
    var runningCount: Int { self.running.count }

    func broadcast(id: String) -> SilentBroadcast? {
        if let known = self.running[id] { return known }
        let now = UInt64(max(self.wallClock().timeIntervalSince1970, 0))
        return (try? self.markers.value(of: Array(id.utf8), in: .silentBroadcast, now: now)).flatMap { $0 }.flatMap(SilentBroadcast.decoded)
    }

    /// Stops a running broadcast; what it sent stays sent.
    func cancel(id: String) async throws -> SilentBroadcast? {
        guard self.broadcast(id: id)?.status == .running else { return self.broadcast(id: id) }
        // The walk ends before the cancellation is written, so it cannot write `running` after.
        if let task = self.tasks.removeValue(forKey: id) {
            task.cancel()
            await task.value
        }
        guard var broadcast = self.broadcast(id: id), broadcast.status == .running else { return self.broadcast(id: id) }
        broadcast.status = .cancelled
        broadcast.finishedAt = self.wallClock()
        self.running[id] = broadcast
        // The walk has stopped: it leaves memory even when the store cannot take the state.
        defer { self.forget(id) }
        try await self.persist(broadcast)
        return broadcast
    }

    /// Resumes the broadcasts a previous run left running.
    func resume() throws {
        guard !self.isStopped else { return }
        let now = UInt64(max(self.wallClock().timeIntervalSince1970, 0))
        for (_, value) in try self.markers.entries(in: .silentBroadcast, now: now) {
            // One this run knows (started, or cancelled meanwhile) is its own; LMDB may lag it.
            guard let broadcast = SilentBroadcast.decoded(value), broadcast.status == .running, self.running[broadcast.id] == nil else { continue }
            // Past the caps too: each was accepted before the restart.
            self.running[broadcast.id] = broadcast
            self.launch(broadcast.id)
            self.logger.notice("silent broadcast resumed", metadata: ["broadcast": "\(broadcast.id)", "visited": "\(broadcast.visited)"])
        }
    }

    /// Stops every walk (shutdown); running broadcasts stay `running` in LMDB and resume at the
    /// next start.
    func stop() async {
        self.isStopped = true
        let running = Array(self.tasks.values)
        for task in running { task.cancel() }
        for task in running { await task.value }
        self.tasks = [:]
    }

    private func launch(_ id: String) {
        // Owned by this actor and cancelled in `stop` (shutdown) or `cancel`: no walk outlives
        // the front door's service.
        self.tasks[id] = Task { await self.walk(id) }
        self.metrics.running(broadcasts: self.running.count)
    }

    /// Drops a broadcast that no longer walks from memory (the store keeps it), and when none
    /// walks any more hands the memory their pushes took back to the system.
    private func forget(_ id: String) {
        self.running[id] = nil
        self.tasks[id] = nil
        self.metrics.running(broadcasts: self.running.count)
        if self.running.isEmpty { FreedMemory.returnToSystem() }
    }

    private func walk(_ id: String) async {
        guard var broadcast = self.running[id] else { return }
        let prefix = SilentRegistrations.keyPrefix(service: broadcast.service)
        let started = self.pacer.now
        let sender = self.sender
        let service = broadcast.service
        // Pages are read ahead of the pushes; the persisted cursor only passes a page once every
        // push of it and of the pages before it has an answer.
        var readCursor = broadcast.cursor
        // The live registrations of the page read last (`queuePage`), sent from `queued` on.
        var queue: [Registration] = []
        var queuePage = 0
        var queued = 0
        var pageEnds: [Int: (next: [UInt8], size: Int, remaining: Int)] = [:]
        var nextPage = 0
        var firstOpenPage = 0
        var exhausted = false
        var launched = 0
        var inFlight = 0
        var lastPersisted = self.pacer.now
        var unreadable = false
        await withTaskGroup(of: (page: Int, outcomes: [SilentSender.Outcome]).self) { group in
            while !Task.isCancelled {
                if queued == queue.count, !exhausted {
                    do {
                        let page = try self.view.registrations(keyPrefix: prefix, after: readCursor, limit: self.batchSize)
                        if let next = page.next {
                            // Copied only when some are disabled: a copy of a registration
                            // retains each of its fields again.
                            let live = page.registrations.allSatisfy(\.enabled) ? page.registrations : page.registrations.filter(\.enabled)
                            pageEnds[nextPage] = (next, page.registrations.count, live.count)
                            queue = live
                            queuePage = nextPage
                            queued = 0
                            nextPage += 1
                            readCursor = next
                        } else {
                            exhausted = true
                        }
                    } catch {
                        self.logger.error("silent broadcast cannot read the registry; it resumes at the next start", metadata: ["broadcast": "\(id)", "error": "\(error)"])
                        unreadable = true
                        return
                    }
                }
                if queued < queue.count, inFlight < self.limits.window, self.pacer.isDue(sent: launched, since: started, perSecond: self.rate) {
                    let due = self.pacer.due(since: started, perSecond: self.rate) - launched
                    let count = max(1, min(Self.sendBatchSize, queue.count - queued, self.limits.window - inFlight, due))
                    let batch = queue[queued..<queued + count]
                    let page = queuePage
                    queued += count
                    group.addTask { (page, await sender.send(to: batch, service: service)) }
                    launched += count
                    inFlight += count
                    continue
                }
                if inFlight > 0, let answered = await group.next() {
                    // Answers are taken whenever nothing may be launched, so progress keeps up.
                    inFlight -= answered.outcomes.count
                    for outcome in answered.outcomes { broadcast.count(outcome) }
                    pageEnds[answered.page]?.remaining -= answered.outcomes.count
                } else if queued < queue.count {
                    do { try await self.pacer.wait(sent: launched, since: started, perSecond: self.rate) } catch { return }
                }
                // Pages whose pushes all have answers move the cursor, in order.
                while let end = pageEnds[firstOpenPage], end.remaining == 0 {
                    broadcast.cursor = end.next
                    broadcast.visited += end.size
                    self.metrics.visited(service: service, count: end.size)
                    pageEnds[firstOpenPage] = nil
                    firstOpenPage += 1
                }
                if exhausted, queued == queue.count, inFlight == 0 { break }
                if !Task.isCancelled, self.pacer.now - lastPersisted >= Self.persistInterval {
                    lastPersisted = self.pacer.now
                    self.running[id] = broadcast
                    try? await self.persist(broadcast)
                }
            }
        }
        guard !Task.isCancelled else { return }
        // Left `running` in the store, as the log line says: the next start resumes it.
        guard !unreadable else {
            self.forget(id)
            return
        }
        broadcast.status = .done
        broadcast.finishedAt = self.wallClock()
        self.running[id] = broadcast
        do {
            try await self.persist(broadcast)
        } catch {
            self.logger.error(
                "silent broadcast done, but the store did not take it; it reads as running and the next start walks it again",
                metadata: ["broadcast": "\(id)", "error": "\(error)"]
            )
        }
        self.forget(id)
        self.logger.notice(
            "silent broadcast done",
            metadata: ["broadcast": "\(id)", "visited": "\(broadcast.visited)", "delivered": "\(broadcast.delivered)", "dead_tokens": "\(broadcast.deadTokens)"]
        )
    }

    private func persist(_ broadcast: SilentBroadcast) async throws {
        let now = max(self.wallClock().timeIntervalSince1970, 0)
        try await self.markers.replace(
            Array(broadcast.id.utf8),
            in: .silentBroadcast,
            expiry: UInt64(now + Double(self.limits.retention.components.seconds)),
            value: broadcast.stored
        )
    }
}
