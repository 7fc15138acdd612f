import HeraldCluster
public import HeraldFrontDoor
import HTTPTypes
import HeraldCore
public import HeraldDelivery
public import Hummingbird
import NIOCore

/// gorush's HTTP API on Herald's delivery pool: `POST /api/push` answers as gorush does in sync
/// mode, with one failed-push entry for every target that was not delivered.
public struct GorushRoutes<Context: RequestContext>: Sendable {
    public struct Configuration: Sendable {
        /// What one request may hold.
        public var limits = GorushRequestLimits()
        /// Sync mode: pushes being delivered at once, across requests; `nil` is no limit.
        public var pending: PendingLimit?
        /// Targets a minute per client address; `nil` is no limit.
        public var clientLimiter: SenderRateLimiter?
        /// Largest request body read.
        public var maximumBodySize = 4 << 20
        /// gorush's `log.hide_token`.
        public var hideTokens = true
        /// gorush's async mode (`core.sync: false`): answer at once and deliver afterwards
        /// through this dispatcher; failures then reach only the feedback webhook. `nil` is
        /// sync mode.
        public var dispatcher: DeliveryQueue?
        /// The running configuration, secrets masked, served at `/api/config`.
        public var configurationText: String?
        /// Answers requests carrying an `Idempotency-Key` once; `nil` ignores the header.
        public var idempotency: GorushIdempotency?

        public init() {}
    }

    let providers: AppProviders
    let configuration: Configuration
    let statistics: GorushStatistics

    public init(providers: AppProviders, statistics: GorushStatistics, configuration: Configuration = .init()) {
        self.providers = providers
        self.statistics = statistics
        self.configuration = configuration
    }

    public func register(on router: some RouterMethods<Context>) {
        router.post("/api/push") { request, context in try await self.push(request, context: context) }
        router.allowOnly([.post], at: "/api/push")
        router.get("/api/stat/app") { _, _ in Self.json(status: .ok, self.statistics.json) }
        router.allowOnly([.get], at: "/api/stat/app")
        if let text = self.configuration.configurationText {
            router.get("/api/config") { _, _ in
                Response(
                    status: .ok,
                    headers: [.contentType: "application/yaml; charset=utf-8"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: text))
                )
            }
            router.allowOnly([.get], at: "/api/config")
        }
    }

    /// The internal API another node forwards a request with an `Idempotency-Key` to, when this
    /// node owns the key; behind the cluster secret.
    public func registerInternal(on router: some RouterMethods<Context>) where Context: ForwardingRequestContext {
        guard self.configuration.idempotency != nil else { return }
        router.allowOnly([.post], at: RouterPath(stringLiteral: GorushIdempotency.internalPath))
        router.post(RouterPath(stringLiteral: GorushIdempotency.internalPath)) { request, context in
            try await self.push(request, context: context, forwardedFrom: context.forwardedFrom ?? "another node")
        }
    }

    func push(_ request: Request, context: Context, forwardedFrom: String? = nil) async throws -> Response {
        let body = Array(buffer: try await request.body.collect(upTo: self.configuration.maximumBodySize))
        // A forwarded request was counted by the node its client reached; without a limit the
        // address (a dynamic cast and a lock) is not worth reading.
        let client = forwardedFrom == nil && self.configuration.clientLimiter != nil ? ClientAddress.of(context) : nil
        guard let idempotency = self.configuration.idempotency, let key = try GorushIdempotency.key(in: request.headers) else {
            let answer = try await self.answer(body, client: client)
            return Self.json(status: HTTPResponse.Status(code: answer.status), answer.body)
        }
        // Charged here, where the client is known: the key's owner may be another node, which
        // sees only the forwarding node.
        if let client, self.configuration.clientLimiter != nil {
            let targets = try GorushPushRequest.decode(body, limits: self.configuration.limits).filter { $0.enabledPlatform != nil }.reduce(0) { $0 + $1.targetCount }
            try self.charge(client, targets: targets)
        }
        let answer = try await idempotency.answer(key: key, body: body, forwardedFrom: forwardedFrom) {
            try await self.answer(body, client: nil)
        }
        var response = Self.json(status: HTTPResponse.Status(code: answer.status), answer.body)
        if answer.replayed { response.headers[GorushIdempotency.replayedHeader] = "true" }
        if let retryAfter = answer.retryAfter { response.headers[.retryAfter] = retryAfter }
        return response
    }

    /// gorush's answer to a push request: delivered (sync) or queued (async), with the failures,
    /// and whether it is worth keeping for a repeat: not when every target failed in a way a
    /// repeat may get past (a full queue, a provider's transient trouble).
    func answer(_ body: [UInt8], client: String?) async throws -> (status: Int, body: [UInt8], keep: Bool) {
        // A refusal renders gorush's own answer through the router.
        let notifications = try GorushPushRequest.decode(body, limits: self.configuration.limits)
        let enabled = notifications.filter { $0.enabledPlatform != nil }
        let counts = enabled.reduce(0) { $0 + $1.targetCount }
        if let client { try self.charge(client, targets: counts) }
        self.statistics.accepted(counts: counts)
        let logs: [GorushLogEntry]
        if let dispatcher = self.configuration.dispatcher {
            logs = await self.dispatch(enabled, through: dispatcher)
        } else {
            logs = await self.deliver(enabled)
        }
        let nothingDelivered = counts > 0 && logs.count >= counts
        let keep = !(nothingDelivered && logs.allSatisfy(\.isTransient))
        // The commonest answer, written without building its JSON tree.
        guard !logs.isEmpty else { return (200, Array(#"{"counts":\#(counts),"logs":[],"success":"ok"}"#.utf8), keep) }
        let answer = JSONValue.object([("counts", .number(Double(counts))), ("logs", .array(logs.map(\.json))), ("success", .string("ok"))])
        return (200, answer.bytes, keep)
    }

    /// Async mode: hands each entry's pushes to the dispatcher (which keeps them in the node's
    /// journal until they end) and answers once they are kept. Entries that would pass its
    /// limit get gorush's "max capacity reached", one per target.
    private func dispatch(_ notifications: [GorushNotification], through dispatcher: DeliveryQueue) async -> [GorushLogEntry] {
        var refused: [GorushLogEntry] = []
        var entries: [GorushNotification] = []
        for entry in notifications {
            // Checked before answering, in both modes (gorush-api.md §2.6).
            if entry.enabledPlatform == .android, let problem = entry.androidProblem {
                self.statistics.pushed(platform: "android", succeeded: false)
                refused.append(self.failure(entry, platform: "android", token: "", error: problem))
                continue
            }
            entries.append(entry)
        }
        // Each entry taken whole or not at all, every entry of the request in one journal write.
        let accepted = await dispatcher.accept(each: entries.map { self.pushes(of: $0).map(\.push) })
        for (entry, taken) in zip(entries, accepted) where !taken {
            let platform = entry.enabledPlatform?.name ?? "ios"
            let tokens = entry.enabledPlatform == .android ? entry.androidTokens : entry.tokens ?? []
            for token in tokens {
                self.statistics.pushed(platform: platform, succeeded: false)
                refused.append(self.failure(entry, platform: platform, token: token, error: "max capacity reached", isTransient: true))
            }
        }
        return refused
    }

    /// Delivers a batch the dispatcher accepted; the outcomes reach gorush's counters here and
    /// the feedback webhook in the pool.
    static func deliverAccepted(_ pushes: [PushNotification], providers: AppProviders, statistics: GorushStatistics) async {
        let results = await providers.send(all: pushes)
        for (push, result) in zip(pushes, results) {
            let delivered = if case .success(.delivered) = result { true } else { false }
            statistics.pushed(platform: Self.platformName(push.device.platform), succeeded: delivered)
        }
    }

    /// The pushes of one entry, each with gorush's name of its platform.
    private func pushes(of entry: GorushNotification) -> [(push: PushNotification, platform: String)] {
        switch entry.enabledPlatform {
        case .ios:
            // Several apps in one Herald: the topic names the app that owns it.
            let app = entry.topic.flatMap { self.providers.appID(forTopic: $0) }
            return entry.apnsNotifications(app: app).map { ($0, "ios") }
        case .android:
            return entry.fcmNotifications().map { ($0, "android") }
        case .webPush:
            return entry.webPushNotifications().map { ($0, "webpush") }
        case .huawei, nil:
            return []
        }
    }

    /// gorush's name of a push's platform, for its counters.
    static func platformName(_ platform: Platform) -> String {
        switch platform {
        case .fcm: "android"
        case .webPush: "webpush"
        default: "ios"
        }
    }

    /// Sends every target of every entry at once and returns the failures. Each push keeps the
    /// index of its entry, not a copy of it: a copy retains every string of the entry again.
    private func deliver(_ notifications: [GorushNotification]) async -> [GorushLogEntry] {
        var failures: [GorushLogEntry] = []
        var pushes: [PushNotification] = []
        var sends: [(entry: Int, platform: String)] = []
        for (index, entry) in notifications.enumerated() {
            if entry.enabledPlatform == .android, let problem = entry.androidProblem {
                self.statistics.pushed(platform: "android", succeeded: false)
                failures.append(self.failure(entry, platform: "android", token: "", error: problem))
                continue
            }
            for send in self.pushes(of: entry) {
                pushes.append(send.push)
                sends.append((index, send.platform))
            }
        }
        if let pending = self.configuration.pending {
            guard pending.acquire(sends.count) else {
                for (push, send) in zip(pushes, sends) {
                    self.statistics.pushed(platform: send.platform, succeeded: false)
                    failures.append(self.failure(notifications[send.entry], platform: send.platform, token: push.device.token, error: "max capacity reached", isTransient: true))
                }
                return failures
            }
        }
        defer { self.configuration.pending?.release(sends.count) }
        let results = await self.providers.send(all: pushes)
        for index in results.indices {
            let send = sends[index]
            if let failure = self.ended(pushes[index], of: send.entry, in: notifications, platform: send.platform, results[index]) { failures.append(failure) }
        }
        return failures
    }

    /// Counts one push's end and returns its failure entry, if it failed. The entry is read
    /// only for a failure: a copy of it for each push retained each of its many fields.
    private func ended(
        _ push: PushNotification,
        of entry: Int,
        in notifications: [GorushNotification],
        platform: String,
        _ result: Result<DeliveryOutcome, AdmissionError>
    ) -> GorushLogEntry? {
        guard case .success(let outcome) = result else {
            // gorush's answer when its queue is full.
            self.statistics.pushed(platform: platform, succeeded: false)
            return self.failure(notifications[entry], platform: platform, token: push.device.token, error: "max capacity reached", isTransient: true)
        }
        self.statistics.pushed(platform: platform, succeeded: outcome == .delivered)
        guard outcome != .delivered else { return nil }
        // A topic or condition message has no token; gorush logs the topic in its place.
        let target = push.device.token.isEmpty ? (push.device.topic ?? notifications[entry].condition ?? "") : push.device.token
        return self.failure(
            notifications[entry],
            platform: platform,
            token: target,
            error: outcome.reason,
            isTransient: outcome.failure.map { GorushLogEntry.transientCodes.contains($0.code) } ?? false
        )
    }

    private func failure(_ entry: GorushNotification, platform: String, token: String, error: String, isTransient: Bool = false) -> GorushLogEntry {
        GorushLogEntry(
            notifID: entry.notifID,
            platform: platform,
            token: self.configuration.hideTokens ? GorushLogEntry.mask(token, platform: platform) : token,
            message: entry.message ?? "",
            error: error,
            isTransient: isTransient
        )
    }

    /// Takes `targets` from `client`'s bucket, or refuses the request with 429.
    private func charge(_ client: String, targets: Int) throws(GorushError) {
        guard let limiter = self.configuration.clientLimiter, let seconds = limiter.take(client, cost: targets) else { return }
        self.statistics.rateLimited()
        throw GorushError.rateLimited(client, limit: limiter.perMinute, retryAfter: seconds)
    }

    static func json(status: HTTPResponse.Status, _ value: JSONValue) -> Response {
        Self.json(status: status, value.bytes)
    }

    static var jsonContentType: String { "application/json; charset=utf-8" }

    static func json(status: HTTPResponse.Status, _ body: [UInt8]) -> Response {
        Response(
            status: status,
            headers: [.contentType: Self.jsonContentType],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body))
        )
    }
}
