import Foundation
import HeraldCore
import HeraldStore
import Logging

/// Runs broadcasts: a walk over every registration of one service in key order, a batch at a
/// time, sending each a silent push at no more than `silent.broadcast-rate` a second. After each
/// batch its progress and cursor are written to LMDB, so a node that restarts resumes where the
/// last batch ended (that batch's devices may get a second push; their limiter coalesces or
/// throttles most). Dead tokens found on the way disable their registrations.
///
/// A broadcast runs on the node that was asked; it reads that node's view, which holds every
/// registration of the cluster.
public actor SilentBroadcasts {
    /// Registrations read and pushed at once, at most: about a tenth of a second's worth at the
    /// broadcast's rate, so pacing is smooth and a restart repeats little.
    static let maximumBatchSize = 1024
    /// How long a finished broadcast stays readable.
    static let retention: TimeInterval = 7 * 86_400

    nonisolated let view: any RegistryView
    nonisolated let markers: MessageMarkers
    nonisolated let sender: SilentSender
    nonisolated let metrics: SilentMetrics
    nonisolated let rate: Int
    nonisolated let batchSize: Int
    nonisolated let pacer: Pacer
    nonisolated let wallClock: @Sendable () -> Date
    nonisolated let logger: Logger
    private var broadcasts: [String: SilentBroadcast] = [:]
    private var tasks: [String: Task<Void, Never>] = [:]
    private var isStopped = false

    init(
        view: any RegistryView,
        markers: MessageMarkers,
        sender: SilentSender,
        metrics: SilentMetrics,
        rate: Int,
        clock: any Clock<Duration>,
        wallClock: @escaping @Sendable () -> Date,
        logger: Logger
    ) {
        self.view = view
        self.markers = markers
        self.sender = sender
        self.metrics = metrics
        self.rate = max(rate, 1)
        self.batchSize = min(Self.maximumBatchSize, max(rate / 10, 1))
        self.pacer = Pacer(clock)
        self.wallClock = wallClock
        self.logger = logger
    }

    /// Starts a broadcast to every registration of `service`.
    func start(service: String) async throws -> SilentBroadcast {
        var broadcast = SilentBroadcast(id: UUID().uuidString.lowercased(), service: service, startedAt: self.wallClock())
        broadcast.status = self.isStopped ? .cancelled : .running
        self.broadcasts[broadcast.id] = broadcast
        try await self.persist(broadcast)
        if !self.isStopped { self.launch(broadcast.id) }
        self.logger.notice("silent broadcast started", metadata: ["broadcast": "\(broadcast.id)", "service": "\(service)"])
        return broadcast
    }

    func broadcast(id: String) -> SilentBroadcast? {
        if let known = self.broadcasts[id] { return known }
        let now = UInt64(max(self.wallClock().timeIntervalSince1970, 0))
        return (try? self.markers.value(of: Array(id.utf8), in: .silentBroadcast, now: now)).flatMap { $0 }.flatMap(SilentBroadcast.decoded)
    }

    /// Stops a running broadcast; what it sent stays sent.
    func cancel(id: String) async throws -> SilentBroadcast? {
        guard var broadcast = self.broadcast(id: id) else { return nil }
        guard broadcast.status == .running else { return broadcast }
        self.tasks[id]?.cancel()
        self.tasks[id] = nil
        broadcast.status = .cancelled
        broadcast.finishedAt = self.wallClock()
        self.broadcasts[id] = broadcast
        try await self.persist(broadcast)
        return broadcast
    }

    /// Resumes the broadcasts a previous run left running.
    func resume() throws {
        let now = UInt64(max(self.wallClock().timeIntervalSince1970, 0))
        for (_, value) in try self.markers.entries(in: .silentBroadcast, now: now) {
            guard let broadcast = SilentBroadcast.decoded(value), broadcast.status == .running, self.tasks[broadcast.id] == nil else { continue }
            self.broadcasts[broadcast.id] = broadcast
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
    }

    private func walk(_ id: String) async {
        guard var broadcast = self.broadcasts[id] else { return }
        let prefix = SilentRegistrations.keyPrefix(service: broadcast.service)
        let started = self.pacer.now
        var sent = 0
        while !Task.isCancelled {
            let page: (registrations: [Registration], next: [UInt8]?)
            do {
                page = try self.view.registrations(keyPrefix: prefix, after: broadcast.cursor, limit: self.batchSize)
            } catch {
                self.logger.error("silent broadcast cannot read the registry; it resumes at the next start", metadata: ["broadcast": "\(id)", "error": "\(error)"])
                return
            }
            guard let next = page.next else {
                broadcast.status = .done
                broadcast.finishedAt = self.wallClock()
                break
            }
            // Paced: the batch may start once the ones before it fit the rate.
            do { try await self.pacer.wait(sent: sent, since: started, perSecond: self.rate) } catch { return }
            let sender = self.sender
            let service = broadcast.service
            let outcomes = await withTaskGroup(of: SilentSender.Outcome.self) { group in
                for registration in page.registrations where registration.enabled {
                    group.addTask { await sender.send(to: registration, service: service) }
                }
                var outcomes: [SilentSender.Outcome] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            // Counted after the batch: a cancelled walk resumes from the last persisted cursor.
            for outcome in outcomes { broadcast.count(outcome) }
            sent += outcomes.count
            broadcast.visited += page.registrations.count
            broadcast.cursor = next
            self.metrics.visited(service: service, count: page.registrations.count)
            if Task.isCancelled { return }
            self.broadcasts[id] = broadcast
            try? await self.persist(broadcast)
        }
        guard !Task.isCancelled else { return }
        self.broadcasts[id] = broadcast
        self.tasks[id] = nil
        try? await self.persist(broadcast)
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
            expiry: UInt64(now + Self.retention),
            value: broadcast.stored
        )
    }
}
