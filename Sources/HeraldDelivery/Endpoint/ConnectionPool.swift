public import HeraldCore
public import Logging
public import NIOCore
import Synchronization

/// Delivers requests to one provider endpoint (host and credentials) over a few kept HTTP/2
/// connections, with bounded admission, retries with back-off and a deadline per notification.
/// APNs and FCM differ only in the `ProviderRequest` they send and the credentials they use.
///
/// Every admitted request ends in exactly one `DeliveryOutcome`; one that cannot be admitted gets
/// `AdmissionError.overloaded` straight away.
public actor ConnectionPool {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        /// `:authority` and TLS server name; the host name of the real service.
        public var authority: String
        public var trustRootsPEM: [String]?
        /// A TLS client certificate: APNs certificate authentication.
        public var clientIdentity: TLSClientIdentity?
        /// Connections kept open when there is work.
        public var connections: Int = 2
        /// Notifications admitted at once (in flight, waiting for a stream, or waiting to retry).
        public var queueLimit: Int = 20_000
        /// How long one attempt may wait for its answer.
        public var requestTimeout: Duration = .seconds(15)
        /// How long a notification may take over all its attempts.
        public var deadline: Duration = .seconds(60)
        public var maximumAttempts: Int = 6
        /// Keep-alive PING interval of each connection.
        public var pingInterval: Duration? = .seconds(60)
        /// The library that frames each connection's HTTP/2.
        public var codec: HTTP2Codec = .nghttp2
        public var backoff = Backoff()

        public init(host: String, port: Int = 443, authority: String? = nil, trustRootsPEM: [String]? = nil) {
            self.host = host
            self.port = port
            self.authority = authority ?? host
            self.trustRootsPEM = trustRootsPEM
        }
    }

    /// The provider's name in messages and logs ("APNs", "FCM").
    public nonisolated let provider: String
    public nonisolated let configuration: Configuration
    /// `nil` when the TLS client certificate is the credential.
    private let credentials: (any ProviderCredentials)?
    private let group: any EventLoopGroup
    private let logger: Logger
    /// Deadlines and back-off; a test clock in tests.
    private nonisolated let clock: DeliveryClock
    /// The connection being opened, so shutdown can wait for it.
    private var connecting: Task<HTTP2Connection, any Error>?
    /// What every push reads: admission and the connections, outside the actor so a push that
    /// finds a free stream never waits for it.
    private nonisolated let fast: FastPath

    private final class FastPath: Sendable {
        let admitted = Atomic<Int>(0)
        let shuttingDown = Atomic<Bool>(false)
        /// The connections, opening, back-off and shutdown, as a value. Pushes only read it; the
        /// actor makes every change, one event under the lock at a time, and runs the event's
        /// action after unlocking.
        let machine: Mutex<StateMachine<HTTP2Connection, DeliveryClock.Instant>>
        /// Set while a task is opening the connections still missing.
        let filling = Atomic<Bool>(false)

        init(_ machine: StateMachine<HTTP2Connection, DeliveryClock.Instant>) {
            self.machine = Mutex(machine)
        }
    }

    public init(
        provider: String,
        configuration: Configuration,
        credentials: (any ProviderCredentials)?,
        group: any EventLoopGroup,
        logger: Logger,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.provider = provider
        self.configuration = configuration
        self.credentials = credentials
        self.group = group
        self.logger = logger
        let clock = DeliveryClock(clock)
        self.clock = clock
        self.fast = FastPath(StateMachine(wanted: configuration.connections, backoff: configuration.backoff, now: clock.now))
    }

    /// Notifications admitted and not yet finished.
    public var queueDepth: Int { self.fast.admitted.load(ordering: .relaxed) }
    /// Connections open now.
    public var openConnections: Int { self.fast.machine.withLock { $0.usable.count } }
    /// Connection attempts that failed since start, by cause.
    public var connectFailureCounts: ConnectFailures { self.fast.machine.withLock { $0.failureCounts } }

    /// Closes every connection; later `send` calls are refused.
    public func shutdown() async {
        self.fast.shuttingDown.store(true, ordering: .relaxed)
        let open = self.fast.machine.withLock { $0.shutDown() }
        for connection in open { await connection.close() }
        // A connection still opening is awaited, so nothing outlives the endpoint's event loops.
        if let connecting = self.connecting {
            connecting.cancel()
            if let late = try? await connecting.value { await late.close() }
        }
    }

    private nonisolated func admit() throws(AdmissionError) {
        guard !self.fast.shuttingDown.load(ordering: .relaxed) else { throw self.shuttingDownError }
        let admitted = self.fast.admitted.add(1, ordering: .relaxed).newValue
        guard admitted <= self.configuration.queueLimit else {
            self.fast.admitted.subtract(1, ordering: .relaxed)
            throw AdmissionError(
                .overloaded,
                "\(admitted - 1) notifications already queued for \(self.provider) at \(self.configuration.host)",
                retryAfter: .seconds(1)
            )
        }
    }

    private nonisolated var shuttingDownError: AdmissionError {
        AdmissionError(.shuttingDown, "the \(self.provider) endpoint \(self.configuration.host) is shutting down", retryAfter: .seconds(5))
    }

    /// Attempts until an outcome, the attempt limit or the deadline.
    /// `first` is the first attempt when `send(all:)` made it; `since` is when the request was
    /// admitted, now by default.
    private nonisolated func deliver(_ request: some ProviderRequest, deadline budget: Duration, since start: DeliveryClock.Instant? = nil, first: FirstAttempt? = nil) async -> Ended {
        var answer: HTTP2Response? = first?.answer
        var attempts = Attempts(maximum: self.configuration.maximumAttempts, deadline: (start ?? self.clock.now) + budget, backoff: self.configuration.backoff)
        var random = SystemRandomNumberGenerator()
        while attempts.count < attempts.maximum {
            attempts.begin()
            let verdict: AttemptVerdict
            var authorization: String?
            var used: HTTP2Connection?
            if attempts.count == 1, let first {
                verdict = first.decision
                authorization = first.authorization
                used = first.connection
            } else {
                do {
                    let connection = try await self.anyConnection(before: attempts.deadline)
                    used = connection
                    authorization = try await self.credentials?.authorization()
                    guard let timeout = attempts.timeout(now: self.clock.now, requestTimeout: self.configuration.requestTimeout) else {
                        return Ended(attempts.deadlinePassed, answer: answer)
                    }
                    let response = try await connection.send(
                        head: connection.requestHead,
                        headers: request.fields,
                        tail: authorization.map { type(of: request).authorizationField($0) } ?? HTTP2Fields(),
                        body: request.body,
                        deadline: timeout
                    )
                    answer = response
                    verdict = request.decision(for: response)
                } catch {
                    verdict = self.decision(after: error, attempt: attempts.count)
                }
            }
            let next = attempts.ended(verdict, now: self.clock.now, hasAuthorization: authorization != nil, using: &random)
            if case .retry = verdict {
                self.logger.debug("retrying a push", metadata: ["provider": "\(self.provider)", "attempt": "\(attempts.count)", "reason": "\(next.reason)"])
            }
            if next.refreshCredentials, let authorization { await self.credentials?.authorizationRejected(authorization) }
            if next.retireConnection { used?.retire(reason: next.reason) }
            switch next.then {
            case .finish(let outcome):
                return Ended(outcome, answer: answer)
            case .retry(let delay) where delay > .zero:
                do {
                    try await self.clock.sleep(for: delay)
                } catch {
                    return Ended(.failed(DeliveryFailure(.cancelled, "cancelled after \(attempts.count) attempts")), answer: answer)
                }
            case .retry:
                continue
            }
        }
        return Ended(attempts.exhausted, answer: answer)
    }

    /// How `deliver` ended: the outcome, and the provider's last answer when one came.
    private struct Ended: Sendable {
        var outcome: DeliveryOutcome
        var answer: HTTP2Response?

        init(_ outcome: DeliveryOutcome, answer: HTTP2Response?) {
            self.outcome = outcome
            self.answer = answer
        }
    }

    /// What a failed attempt means: finish with an outcome, or retry (after what).
    private nonisolated func decision(after error: any Error, attempt: Int) -> AttemptVerdict {
        switch error {
        case is CancellationError:
            return .finish(.failed(DeliveryFailure(.cancelled, "cancelled after \(attempt - 1) attempts")))
        case let error as HTTP2ConnectionError:
            self.logger.debug("attempt failed on the connection", metadata: ["provider": "\(self.provider)", "error": "\(error)"])
            switch error.code {
            case .streamReset, .timedOut:
                // The connection may be fine; the stream was not. Retry after a back-off.
                return .retry(reason: error.code.rawValue, after: nil, then: .none)
            default:
                // The request may not have reached the provider; another connection gets it at once.
                return .retry(reason: error.peerReason ?? error.code.rawValue, after: nil, then: .newConnection)
            }
        case let error as CredentialsError:
            guard !error.isPermanent else { return .finish(.failed(DeliveryFailure(.credentials, error.reason))) }
            return .retry(reason: error.reason, after: nil, then: .none)
        case let error as DeadlineExceeded:
            return .finish(.failed(DeliveryFailure(.deadlineExceeded, "deadline exceeded after \(attempt - 1) attempts: \(error.reason)")))
        case let error as AdmissionError:
            return .finish(.failed(DeliveryFailure(error.code == .overloaded ? .overloaded : .shuttingDown, error.code.rawValue)))
        default:
            return .retry(reason: "\(error)", after: nil, then: .none)
        }
    }

    /// An attempt `send(all:)` made before handing a request to `deliver`.
    private struct FirstAttempt: Sendable {
        var decision: AttemptVerdict
        var connection: HTTP2Connection
        var authorization: String?
        var answer: HTTP2Response?
    }

    /// Delivers requests, each within its deadline (at most the configured one), to an outcome,
    /// or refuses it with `AdmissionError` (queue full, shutting down). Their first attempts leave
    /// together on one connection with free streams and are awaited together, without a task
    /// each; only those that need more (a retry, no free stream) take `deliver`'s path, in a task
    /// each. One request is a batch of one and goes to `deliver` from this task.
    public nonisolated func send<Request: ProviderRequest>(all requests: [(request: Request, deadline: Duration?)]) async -> [DeliveryResult] {
        let began = ContinuousClock.now
        var results = [DeliveryResult?](repeating: nil, count: requests.count)
        var admitted: [Int] = []
        admitted.reserveCapacity(requests.count)
        for index in requests.indices {
            do {
                try self.admit()
                admitted.append(index)
            } catch {
                results[index] = DeliveryResult(.failure(error), duration: .zero)
            }
        }
        // Each request leaves the queue depth as it ends, not when the slowest of the batch does,
        // and is timed to its own end.
        let settled: @Sendable () -> Duration = { [fast = self.fast] in
            fast.admitted.subtract(1, ordering: .relaxed)
            return ContinuousClock.now - began
        }
        let budgets = requests.map { min($0.deadline ?? self.configuration.deadline, self.configuration.deadline) }
        let startedAt = self.clock.now
        // The first attempts of those that find a free stream now, on one connection.
        // `slots`: each sent request's index in `requests` and its position in the batch.
        var batch: (connection: HTTP2Connection, authorization: String?, slots: [(index: Int, position: Int)], answers: EventLoopFuture<[Result<HTTP2Response, any Error>?]>)?
        var unsent = admitted
        if admitted.count > 1, let connection = self.freeConnection() {
            var authorization: String?
            var ready = true
            if let credentials = self.credentials {
                do { authorization = try await credentials.authorization() } catch { ready = false }
            }
            if ready {
                // The connection's fields and the authorization are shared by the batch, not
                // copied into each request's header block.
                let head = connection.requestHead
                let tail = authorization.map { Request.authorizationField($0) } ?? HTTP2Fields()
                let started = connection.startTogether(
                    admitted.map { index in
                        HTTP2Connection.Request(
                            head: head,
                            headers: requests[index].request.fields,
                            tail: tail,
                            body: requests[index].request.body,
                            deadline: min(self.configuration.requestTimeout, budgets[index])
                        )
                    }
                )
                var slots: [(index: Int, position: Int)] = []
                slots.reserveCapacity(admitted.count)
                unsent = []
                for (position, (index, sent)) in zip(admitted, started.sent).enumerated() {
                    if sent { slots.append((index, position)) } else { unsent.append(index) }
                }
                batch = (connection, authorization, slots, started.answers)
            }
        }
        if batch == nil, unsent.count == 1, let index = unsent.first {
            let ended = await self.deliver(requests[index].request, deadline: budgets[index], since: startedAt)
            results[index] = DeliveryResult(.success(ended.outcome), duration: settled(), answer: ended.answer)
            return results.map { $0 ?? DeliveryResult(.failure(self.shuttingDownError), duration: .zero) }
        }
        let unsentNow = unsent
        let sentBatch = batch
        let ended = await withTaskGroup(of: (Int, DeliveryResult).self) { group in
            // Those without a free stream take the full path at once: they must not wait for
            // the batch's answers before they even queue for a stream.
            for index in unsentNow {
                group.addTask {
                    let ended = await self.deliver(requests[index].request, deadline: budgets[index], since: startedAt)
                    return (index, DeliveryResult(.success(ended.outcome), duration: settled(), answer: ended.answer))
                }
            }
            var ended: [(Int, DeliveryResult)] = []
            ended.reserveCapacity(requests.count)
            if let sentBatch {
                // Never fails: it gathers every result, in order.
                let answers = (try? await sentBatch.answers.get()) ?? []
                for (index, position) in sentBatch.slots {
                    let decision: AttemptVerdict
                    var answer: HTTP2Response?
                    switch position < answers.count ? answers[position] : nil {
                    case .success(let response)?:
                        answer = response
                        decision = requests[index].request.decision(for: response)
                    case .failure(let error)?: decision = self.decision(after: error, attempt: 1)
                    case nil: decision = .retry(reason: "no answer gathered", after: nil, then: .none)
                    }
                    if case .finish(let outcome) = decision {
                        ended.append((index, DeliveryResult(.success(outcome), duration: settled(), answer: answer)))
                    } else {
                        let first = FirstAttempt(decision: decision, connection: sentBatch.connection, authorization: sentBatch.authorization, answer: answer)
                        group.addTask {
                            let ended = await self.deliver(requests[index].request, deadline: budgets[index], since: startedAt, first: first)
                            return (index, DeliveryResult(.success(ended.outcome), duration: settled(), answer: ended.answer))
                        }
                    }
                }
            }
            for await outcome in group { ended.append(outcome) }
            return ended
        }
        for (index, ending) in ended { results[index] = ending }
        return results.map { $0 ?? DeliveryResult(.failure(self.shuttingDownError), duration: .zero) }
    }

    /// `send(all:)` for notifications: `request` builds each one's provider request, or refuses
    /// it with the outcome the provider would give, without a request.
    public nonisolated func send<Request: ProviderRequest, Refusal: ProviderRequestError>(
        all notifications: [PushNotification],
        request: (PushNotification) throws(Refusal) -> Request
    ) async -> [DeliveryResult] {
        var endings = [DeliveryResult?](repeating: nil, count: notifications.count)
        var requests: [(request: Request, deadline: Duration?)] = []
        var slots: [Int] = []
        for (index, notification) in notifications.enumerated() {
            do throws(Refusal) {
                requests.append((try request(notification), notification.deadline))
                slots.append(index)
            } catch {
                endings[index] = DeliveryResult(.success(error.outcome), duration: .zero)
            }
        }
        for (index, ending) in zip(slots, await self.send(all: requests)) { endings[index] = ending }
        return endings.map { $0 ?? DeliveryResult(.failure(self.shuttingDownError), duration: .zero) }
    }

    /// An open connection with a free stream, preferring the one on this task's event loop;
    /// `nil` when none has one now.
    private nonisolated func freeConnection() -> HTTP2Connection? {
        self.fast.machine.withLock { Self.free(among: $0.connections) }
    }

    /// The one on the event loop this task runs on (no thread hop to send, none to resume), else
    /// the least busy with a free stream.
    private static func free(among connections: [HTTP2Connection]) -> HTTP2Connection? {
        var best: HTTP2Connection?
        for connection in connections where connection.isUsable && connection.openStreams < connection.maxConcurrentStreams {
            if connection.eventLoop.inEventLoop { return connection }
            if best.map({ connection.openStreams < $0.openStreams }) ?? true { best = connection }
        }
        return best
    }

    private struct DeadlineExceeded: Error {
        var reason: String
    }

    /// An open connection with a free stream, read without entering the actor: the one on the
    /// event loop this task runs on (no thread hop to send, none to resume), else the least busy.
    /// The actor decides only when there is none (opening, queueing, waiting out a back-off).
    private nonisolated func anyConnection(before deadline: DeliveryClock.Instant) async throws -> HTTP2Connection {
        let (free, open) = self.fast.machine.withLock { machine in (Self.free(among: machine.connections), machine.connections.count { $0.isUsable }) }
        if open < self.configuration.connections { self.fillConnections() }
        if let free { return free }
        return try await self.connection(before: deadline)
    }

    /// Opens the configured number of connections once there is work, one per event loop where
    /// the group has enough, so every loop sends its own pushes. One task at a time does it.
    private nonisolated func fillConnections() {
        guard self.fast.filling.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        Task {
            await self.openMissingConnections()
            self.fast.filling.store(false, ordering: .relaxed)
        }
    }

    private func openMissingConnections() async {
        while true {
            let now = self.clock.now
            guard let fill = self.fast.machine.withLock({ $0.fillWanted(now: now) }) else { return }
            if case .connect(let avoiding) = fill { self.startConnecting(avoiding: avoiding) }
            guard let connecting = self.connecting, (try? await connecting.value) != nil else { return }
        }
    }

    /// A usable connection with a free stream if there is one, else the least busy, opening
    /// connections up to the configured number as needed.
    private func connection(before deadline: DeliveryClock.Instant) async throws -> HTTP2Connection {
        while true {
            let now = self.clock.now
            let pick = self.fast.machine.withLock { $0.connectionWanted(now: now, deadline: deadline) }
            switch pick {
            case .use(let connection, let avoiding):
                if let avoiding { self.startConnecting(avoiding: avoiding) }
                return connection
            case .connect(let avoiding):
                self.startConnecting(avoiding: avoiding)
                _ = try? await self.connecting?.value
            case .waitForConnecting:
                _ = try? await self.connecting?.value
            case .sleep(let until):
                try await Task.sleep(until: until, clock: self.clock)
            case .fail(.shuttingDown):
                throw self.shuttingDownError
            case .fail(.noConnection(let reason)):
                throw DeadlineExceeded(reason: reason)
            }
        }
    }

    private func startConnecting(avoiding used: Set<ObjectIdentifier>) {
        self.fast.machine.withLock { $0.connecting() }
        let configuration = self.configuration
        // A loop no open connection uses yet, when the group has one.
        let group: any EventLoopGroup = self.group.makeIterator().first { !used.contains(ObjectIdentifier($0)) } ?? self.group
        self.connecting = Task {
            do {
                var connectionConfiguration = try HTTP2Connection.Configuration(
                    host: configuration.host,
                    port: configuration.port,
                    authority: configuration.authority,
                    trustRootsPEM: configuration.trustRootsPEM
                )
                connectionConfiguration.pingInterval = configuration.pingInterval
                connectionConfiguration.codec = configuration.codec
                if let identity = configuration.clientIdentity {
                    try identity.apply(to: &connectionConfiguration.tls)
                }
                let connection = try await HTTP2Connection.connect(connectionConfiguration, group: group)
                self.connected(connection)
                return connection
            } catch {
                self.connectFailed(error)
                throw error
            }
        }
    }

    private func connected(_ connection: HTTP2Connection) {
        self.connecting = nil
        // During shutdown `shutdown()` closes it after awaiting the connect.
        _ = self.fast.machine.withLock { $0.connected(connection) }
    }

    private func connectFailed(_ error: any Error) {
        self.connecting = nil
        let now = self.clock.now
        let outOfFiles = ResourceExhaustion.isOutOfFileDescriptors(error)
        let delay = self.fast.machine.withLock { $0.connectFailed("\(error)", outOfFiles: outOfFiles, now: now) }
        self.logger.warning(
            "cannot connect to \(self.provider)",
            metadata: ["provider.host": "\(self.configuration.host)", "error": "\(error)", "retry.in": "\(delay)"]
        )
    }
}
