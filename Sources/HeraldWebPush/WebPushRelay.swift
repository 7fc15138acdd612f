import Crypto
public import Foundation
public import HeraldCore
public import HeraldDelivery
public import HeraldStore
public import Logging

/// The relay itself, apart from HTTP: it checks a push (path, VAPID, headers, rate, known dead
/// tokens, size), delivers it synchronously through the node's pool and answers as
/// webpush-relay.md §5.4 says. A 4xx makes Mastodon delete the subscription, so a 4xx means the
/// subscription can never work; everything transient is 429 or 5xx with `Retry-After`.
public struct WebPushRelay: Sendable {
    /// Seconds a sender should wait after Herald's own queue was full.
    static let overloadedRetryAfter = 1
    /// After the provider throttled the device or failed after its retries.
    static let providerRetryAfter = 30
    /// After the provider refused the request for a reason of Herald's configuration.
    static let configurationRetryAfter = 300

    let providers: AppProviders
    let configuration: WebPushConfiguration
    let relays: [String: RelayDefinition]
    let fcmApps: Set<String>
    /// By relay name or FCM app; a scope without keys is not checked.
    let verifiers: [String: VAPIDVerifier]
    let limiter: SenderRateLimiter
    /// Per application server: what one VAPID key may send across all its subscriptions.
    let vapidLimiter: SenderRateLimiter
    let markers: MessageMarkers
    let metrics: WebPushMetrics
    let logger: Logger
    let wallClock: @Sendable () -> Date

    public init(
        providers: AppProviders,
        configuration: WebPushConfiguration,
        markers: MessageMarkers,
        metrics: WebPushMetrics,
        logger: Logger,
        clock: some Clock<Duration> = ContinuousClock(),
        wallClock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.providers = providers
        self.configuration = configuration
        self.relays = Dictionary(configuration.allRelays.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.fcmApps = Set(configuration.fcmApps)
        var verifiers: [String: VAPIDVerifier] = [:]
        for scope in Set(self.relays.keys).union(self.fcmApps) {
            let keys = configuration.vapidKeys.filter { $0.scope == nil || $0.scope == scope }.map(\.key)
            // The configuration requires the audience with keys; without one nothing would match.
            if !keys.isEmpty { verifiers[scope] = VAPIDVerifier(keys: keys, audience: configuration.vapidAudience ?? "") }
        }
        self.verifiers = verifiers
        self.limiter = SenderRateLimiter(perMinute: configuration.rateLimit, clock: clock)
        self.vapidLimiter = SenderRateLimiter(perMinute: configuration.vapidRateLimit, capacity: 10_000, clock: clock)
        self.markers = markers
        self.metrics = metrics
        self.logger = logger
        self.wallClock = wallClock
    }

    /// The APNs destination of a path of relay `name`.
    public func destination(relay name: String, path: String) throws(RelayError) -> RelayDestination {
        guard let relay = self.relays[name] else { throw .notARelayPath(path) }
        let parsed = try RelayPath.parse(path, prefix: relay.pathPrefix + "/")
        guard let app = relay.app(environment: parsed.environment) else {
            throw .noSuchRelay("this relay has no app for the environment '\(parsed.environment.prefix(40))'")
        }
        return RelayDestination(platform: .apns, app: app, token: parsed.token, extra: parsed.extra, route: name, scope: name)
    }

    /// The FCM destination of a `/relay-to-fcm/…` path.
    public func fcmDestination(path: String) throws(RelayError) -> RelayDestination {
        let parsed = try FCMRelayPath.parse(path)
        guard self.fcmApps.contains(parsed.app) else { throw .noSuchRelay("no FCM relay app '\(parsed.app.prefix(40))' is configured") }
        return RelayDestination(platform: .fcm, app: parsed.app, token: parsed.token, extra: parsed.extra, route: "fcm/\(parsed.app)", scope: parsed.app)
    }

    /// Relays one push. `headers` maps lower-cased names to every value sent.
    public func push(to destination: RelayDestination, headers: [String: [String]], body: [UInt8]) async -> RelayAnswer {
        var encoding = "none"
        let answer = await self.answer(destination, headers: headers, body: body, encoding: &encoding)
        self.metrics.record(route: destination.route, encoding: encoding, outcome: answer.outcome)
        return answer
    }

    /// Records a path refused before it named a destination.
    public func refused(route: String, _ error: RelayError) -> RelayAnswer {
        let answer = RelayAnswer(error)
        self.metrics.record(route: route, encoding: "none", outcome: answer.outcome)
        return answer
    }

    private func answer(
        _ destination: RelayDestination,
        headers: [String: [String]],
        body: [UInt8],
        encoding: inout String
    ) async -> RelayAnswer {
        var vapidKey: [UInt8]?
        if let verifier = self.verifiers[destination.scope] {
            do {
                vapidKey = try await verifier.verify(headers: headers, now: self.wallClock())
            } catch {
                return RelayAnswer(error)
            }
        }
        let message: RelayMessage
        do {
            message = try RelayMessage(headers: headers, body: body, maximumTTL: self.configuration.maximumTTL)
        } catch {
            return RelayAnswer(error)
        }
        switch message.encoding {
        case .aes128gcm: encoding = "aes128gcm"
        case .aesgcm(let senderKey, _):
            encoding = "aesgcm"
            // RFC 8292 §3.2: a VAPID key equal to the message's ECDH key is refused.
            if let vapidKey, vapidKey == senderKey {
                return RelayAnswer(.badCryptoParameter("Crypto-Key dh", "must not be the VAPID key (RFC 8292 §3.2)"))
            }
        }

        let deadKey = self.deadTokenKey(destination)
        let now = self.wallClock()
        do {
            if try self.markers.contains(deadKey, in: self.configuration.deadTokenMarkers, now: UInt64(max(now.timeIntervalSince1970, 0))) {
                return RelayAnswer(status: 410, text: "the device token is no longer valid", outcome: .knownDeadToken)
            }
        } catch {
            self.logger.warning("cannot read the Web Push dead-token set", metadata: ["error": "\(error)"])
        }
        if let seconds = self.limiter.take(destination.subscription) {
            return RelayAnswer(
                status: 429,
                headers: ["Retry-After": "\(seconds)"],
                text: "this subscription sent more than \(self.configuration.rateLimit) pushes a minute",
                outcome: .rateLimited
            )
        }
        if let vapidKey, let seconds = self.vapidLimiter.take(Hex.encode(vapidKey)) {
            return RelayAnswer(
                status: 429,
                headers: ["Retry-After": "\(seconds)"],
                text: "this VAPID key sent more than \(self.configuration.vapidRateLimit) pushes a minute",
                outcome: .rateLimited
            )
        }
        return await self.deliver(message, to: destination, deadKey: deadKey, now: now)
    }

    private func deliver(_ message: RelayMessage, to destination: RelayDestination, deadKey: [UInt8], now: Date) async -> RelayAnswer {
        let id = RandomUUID.lowercased()
        var payload: [UInt8]
        var delivered = RelayOutcome.delivered
        let fits: Bool
        switch destination.platform {
        case .fcm:
            payload = FCMRelayPayload.encode(message, extra: destination.extra)
            fits = payload.count <= FCMRelayPayload.limit
        default:
            fits = RelayPayload.size(bodyCount: message.body.count, encoding: message.encoding, extra: destination.extra) <= RelayPayload.limit
            payload = fits ? RelayPayload.encode(message, extra: destination.extra) : []
        }
        if !fits {
            switch self.configuration.oversize {
            case .drop:
                self.logger.notice(
                    "Web Push body too large for the provider's payload: answered 201 and dropped (webpush.oversize: drop)",
                    metadata: ["route": "\(destination.route)", "token": "\(Self.tokenHash(destination.token))", "body_bytes": "\(message.body.count)"]
                )
                return .created(id: id, ttl: message.ttl, outcome: .oversizeDropped)
            case .reduced:
                payload = destination.platform == .fcm
                    ? FCMRelayPayload.reduced(message, extra: destination.extra) : RelayPayload.reduced(extra: destination.extra)
                delivered = .oversizeReduced
            }
        }

        var notification = PushNotification(
            id: id,
            device: Device(platform: destination.platform, token: destination.token, app: destination.app),
            payload: payload
        )
        if destination.platform != .fcm {
            notification.pushType = "alert"
            notification.priority = message.urgency.isPowerConsiderate ? .powerConsiderate : .immediate
            // TTL 0 means "now or never", which is APNs' expiration 0, not "now".
            notification.expiration = message.ttl == 0 ? 0 : Int64(now.timeIntervalSince1970) + Int64(message.ttl)
            notification.collapseID = message.topic
        }
        notification.deadline = self.configuration.deliveryDeadline
        let outcome: DeliveryOutcome
        do {
            outcome = try await self.providers.send(notification)
        } catch {
            return RelayAnswer(
                status: 429,
                headers: ["Retry-After": "\(Self.overloadedRetryAfter)"],
                text: "the relay's delivery queue is full",
                outcome: .overloaded
            )
        }
        switch outcome {
        case .delivered:
            return .created(id: id, ttl: message.ttl, outcome: delivered)
        case .deadToken(let failure) where failure.code == .fcmSenderIDMismatch:
            // Every token of the app answers this when the service account is the wrong one:
            // an operator's fix, not a dead subscription.
            return Self.answer(failure)
        case .deadToken(let failure):
            // Only tokens the provider says existed and are gone are remembered: malformed ones
            // are answered 410 too, but a flood of them must not grow the store.
            if [.unregistered, .expiredToken, .fcmUnregistered].contains(failure.code) || failure.detail == "HTTP 410" {
                await self.remember(deadKey, now: now)
            }
            return RelayAnswer(status: 410, text: "the device token is no longer valid (\(failure.detail))", outcome: .deadToken)
        case .rejected(let failure), .failed(let failure):
            return Self.answer(failure)
        }
    }

    /// A push the provider did not take, for a reason other than the token.
    static func answer(_ failure: DeliveryFailure) -> RelayAnswer {
        // Attempts that ran out (in number or time) on throttling are throttling.
        let throttled = [.retriesExhausted, .deadlineExceeded].contains(failure.code)
            && ["TooManyRequests", "QUOTA_EXCEEDED", "HTTP 429"].contains { failure.detail.hasSuffix($0) }
        switch throttled ? .tooManyRequests : failure.code {
        case .tooManyRequests, .fcmQuotaExceeded:
            return RelayAnswer(
                status: 429,
                headers: ["Retry-After": "\(Self.providerRetryAfter)"],
                text: "the provider is throttling pushes to this device (\(failure.detail))",
                outcome: .providerThrottled
            )
        case .overloaded:
            return RelayAnswer(
                status: 429,
                headers: ["Retry-After": "\(Self.overloadedRetryAfter)"],
                text: "the relay's delivery queue is full (\(failure.detail))",
                outcome: .overloaded
            )
        case .shuttingDown, .cancelled:
            return RelayAnswer(
                status: 503,
                headers: ["Retry-After": "\(Self.overloadedRetryAfter)"],
                text: "the relay is shutting down (\(failure.detail))",
                outcome: .overloaded
            )
        case .credentials, .badTopic, .missingTopic, .topicDisallowed, .badCertificate, .badCertificateEnvironment, .forbidden,
            .invalidProviderToken, .badEnvironmentKeyIdInToken, .fcmSenderIDMismatch, .fcmThirdPartyAuthError, .unknownApp, .noProvider:
            // The relay's own configuration is wrong: the sender keeps the subscription and tries
            // again once an operator has fixed it.
            return RelayAnswer(
                status: 502,
                headers: ["Retry-After": "\(Self.configurationRetryAfter)"],
                text: "the provider refused the relay's credentials or topic (\(failure.detail))",
                outcome: .providerRejected
            )
        default:
            return RelayAnswer(
                status: 503,
                headers: ["Retry-After": "\(Self.providerRetryAfter)"],
                text: "the push could not be delivered now (\(failure.detail))",
                outcome: .failed
            )
        }
    }

    private func remember(_ deadKey: [UInt8], now: Date) async {
        let seconds = UInt64(max(now.timeIntervalSince1970, 0))
        do {
            _ = try await self.markers.insert(deadKey, in: self.configuration.deadTokenMarkers, now: seconds)
        } catch {
            self.logger.warning("cannot remember a dead Web Push token", metadata: ["error": "\(error)"])
        }
    }

    /// The platform, then a hash of app and token: tokens of any length make keys LMDB takes.
    private func deadTokenKey(_ destination: RelayDestination) -> [UInt8] {
        [destination.platform.rawValue] + Array(SHA256.hash(data: Array("\(destination.app)/\(destination.token)".utf8)))
    }

    /// What logs say instead of a device token.
    static func tokenHash(_ token: String) -> String {
        SHA256.hash(data: Array(token.utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
    }
}

/// Where a relay push goes: from its path.
public struct RelayDestination: Sendable, Hashable {
    public var platform: Platform
    public var app: String
    public var token: String
    public var extra: String?
    /// The metric label: the relay's name (`default` for `/relay-to`), or `fcm/<app>`.
    public var route: String
    /// What VAPID keys are configured for: the relay's name or the FCM app.
    public var scope: String

    /// What the rate limit counts by: the route and a hash of the token (FCM tokens may be
    /// kilobytes long).
    var subscription: String {
        self.route + "/" + SHA256.hash(data: Array(self.token.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}
