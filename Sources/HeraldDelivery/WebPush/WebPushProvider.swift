import AsyncHTTPClient
public import Foundation
public import HeraldCore
public import Logging
public import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

/// Delivers notifications as Web Push messages (RFC 8030) to the push services of browsers and
/// UnifiedPush distributors: each payload encrypted for its subscription (RFC 8291), signed for
/// with the app's VAPID key (RFC 8292), to endpoints the operator allows. Unlike APNs and FCM
/// there is no one provider host: every subscription names its own push service, reached over
/// HTTP/2 or HTTP/1.1 by AsyncHTTPClient, one client per host.
public struct WebPushProvider: Sendable {
    public struct Configuration: Sendable {
        public var endpoints: WebPushEndpointPolicy
        /// `TTL` of a push that names no expiry.
        public var defaultTTL: Int64 = 86_400
        /// Certificates to trust instead of the system's (a test peer, a private push service).
        public var trustRootsPEM: [String]?
        public var connectionsPerHost = 4
        /// Push service hosts with open connections at once.
        public var hosts = 16
        public var queueLimit = 20_000
        public var requestTimeout: Duration = .seconds(15)
        public var connectTimeout: Duration = .seconds(10)
        /// How long a push may take over all its attempts.
        public var deadline: Duration = .seconds(60)
        public var maximumAttempts = 6
        /// Push services ask for seconds (`Retry-After`), not APNs' 200 ms.
        public var backoff = Backoff(initial: .seconds(1), multiplier: 2, maximum: .seconds(30), jitter: 0.2)
        /// How long a host's checked address is used before it is looked up again.
        public var addressLifetime: Duration = .seconds(300)

        public init(endpoints: WebPushEndpointPolicy) {
            self.endpoints = endpoints
        }
    }

    /// What is counted across the tasks delivering at once.
    private final class Counters: Sendable {
        let admitted = Atomic<Int>(0)
        let shuttingDown = Atomic<Bool>(false)
    }

    public let configuration: Configuration
    public let vapid: VAPIDSigner
    private let clients: WebPushClients
    private let clock: DeliveryClock
    private let counters = Counters()
    private let logger: Logger
    /// UNIX seconds, which a notification's expiry is in.
    private let unixNow: @Sendable () -> Int64

    /// `clock` times deadlines, back-off and address lifetimes; `unixNow` turns expiries into
    /// `TTL`.
    public init(
        configuration: Configuration,
        vapid: VAPIDSigner,
        group: any EventLoopGroup,
        logger: Logger,
        clock: any Clock<Duration> = ContinuousClock(),
        unixNow: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let roots = configuration.trustRootsPEM {
            tls.trustRoots = .certificates(try roots.flatMap { try NIOSSLCertificate.fromPEMBytes(Array($0.utf8)) })
        }
        self.configuration = configuration
        self.vapid = vapid
        self.clock = DeliveryClock(clock)
        self.clients = WebPushClients(
            settings: WebPushClients.Settings(
                endpoints: configuration.endpoints,
                tls: tls,
                connectionsPerHost: configuration.connectionsPerHost,
                hosts: configuration.hosts,
                connectTimeout: configuration.connectTimeout,
                readTimeout: configuration.requestTimeout,
                refreshAfter: configuration.addressLifetime
            ),
            group: group,
            clock: self.clock
        )
        self.logger = logger
        self.unixNow = unixNow
    }

    /// Delivers each notification; they go to their push services at once, since each may be a
    /// different one.
    public func send(all notifications: [PushNotification]) async -> [DeliveryResult] {
        if notifications.count == 1 { return [await self.deliver(notifications[0])] }
        return await withTaskGroup(of: (Int, DeliveryResult).self) { group in
            for (index, notification) in notifications.enumerated() {
                group.addTask { (index, await self.deliver(notification)) }
            }
            var results = [DeliveryResult?](repeating: nil, count: notifications.count)
            for await (index, result) in group { results[index] = result }
            return results.map { $0! }
        }
    }

    var hostsConnected: Int { get async { await self.clients.hostCount } }

    var pushesUnderWay: Int { self.counters.admitted.load(ordering: .relaxed) }

    /// Closes every client; later sends are refused.
    public func shutdown() async {
        self.counters.shuttingDown.store(true, ordering: .relaxed)
        await self.clients.shutdown()
    }

    private func deliver(_ notification: PushNotification) async -> DeliveryResult {
        let start = self.clock.now
        guard !self.counters.shuttingDown.load(ordering: .relaxed) else {
            return DeliveryResult(.failure(AdmissionError(.shuttingDown, "the Web Push provider is shutting down", retryAfter: .seconds(5))), duration: .zero)
        }
        let admitted = self.counters.admitted.add(1, ordering: .relaxed).newValue
        defer { self.counters.admitted.subtract(1, ordering: .relaxed) }
        guard admitted <= self.configuration.queueLimit else {
            return DeliveryResult(
                .failure(AdmissionError(.overloaded, "\(admitted - 1) Web Push notifications already under way", retryAfter: .seconds(1))),
                duration: .zero
            )
        }
        let request: WebPushRequest
        do {
            request = try WebPushRequest(notification, defaultTTL: self.configuration.defaultTTL, now: self.unixNow())
        } catch {
            return DeliveryResult(.success(.rejected(error.failure)), duration: self.clock.now - start)
        }
        let budget = min(notification.deadline ?? self.configuration.deadline, self.configuration.deadline)
        let (outcome, answer) = await self.attempts(request, until: start + budget)
        return DeliveryResult(.success(outcome), duration: self.clock.now - start, answer: answer)
    }

    /// Attempts until an outcome, the attempt limit or the deadline.
    private func attempts(_ request: WebPushRequest, until deadline: DeliveryClock.Instant) async -> (DeliveryOutcome, HTTP2Response?) {
        var attempts = ConnectionPool.Attempts(maximum: self.configuration.maximumAttempts, deadline: deadline, backoff: self.configuration.backoff)
        var answer: HTTP2Response?
        var random = SystemRandomNumberGenerator()
        while attempts.count < attempts.maximum {
            attempts.begin()
            guard let timeout = attempts.timeout(now: self.clock.now, requestTimeout: self.configuration.requestTimeout) else {
                return (attempts.deadlinePassed, answer)
            }
            let verdict: AttemptVerdict
            switch await self.attempt(request, timeout: timeout) {
            case .answered(let response):
                answer = response
                verdict = WebPushAnswer.verdict(status: response.status, retryAfter: response.headers.first(name: "retry-after"), body: response.body)
            case .verdict(let given):
                verdict = given
            }
            let next = attempts.ended(verdict, now: self.clock.now, hasAuthorization: false, using: &random)
            switch next.then {
            case .finish(let outcome):
                return (outcome, answer)
            case .retry(let delay):
                self.logger.debug("retrying a Web Push", metadata: ["endpoint": "\(request.subscription.endpoint.authority)", "attempt": "\(attempts.count)", "reason": "\(next.reason)"])
                do {
                    try await self.clock.sleep(for: delay)
                } catch {
                    return (.failed(DeliveryFailure(.cancelled, "cancelled after \(attempts.count) attempts")), answer)
                }
            }
        }
        return (attempts.exhausted, answer)
    }

    private enum Attempt {
        case answered(HTTP2Response)
        case verdict(AttemptVerdict)
    }

    /// One POST to the push service.
    private func attempt(_ request: WebPushRequest, timeout: Duration) async -> Attempt {
        let endpoint = request.subscription.endpoint
        let client: HTTPClient
        do {
            client = try await self.clients.acquire(endpoint, within: timeout)
        } catch {
            switch error {
            case .refused(let message): return .verdict(.finish(.rejected(DeliveryFailure(.endpointRefused, message))))
            case .unavailable(let message): return .verdict(.retry(reason: message, after: nil, then: .none))
            }
        }
        let authorization: String
        do {
            authorization = try await self.vapid.authorization(origin: endpoint.origin)
        } catch {
            await self.clients.release(client, transportFailed: false, endpoint: endpoint)
            // Herald's own failure, not the push service's refusal of the key (`credentials`).
            return .verdict(.finish(.failed(DeliveryFailure(.other, "cannot sign the VAPID token: \(error)"))))
        }
        do {
            var post = HTTPClientRequest(url: endpoint.url)
            post.method = .POST
            for (name, value) in request.headers { post.headers.add(name: name, value: value) }
            post.headers.add(name: "Authorization", value: authorization)
            post.body = .bytes(ByteBuffer(bytes: request.body))
            let response = try await client.execute(post, timeout: TimeAmount(timeout), logger: self.logger)
            var body: [UInt8] = []
            // Only the start of an answer is kept (the reason a person reads); a push service
            // that streams more is not read to its end. Once the status came it decides: a body
            // that breaks off or stalls past the read timeout does not make a delivered push
            // retried (and sent twice).
            do {
                for try await chunk in response.body {
                    body += chunk.readableBytesView.prefix(4096 - body.count)
                    if body.count >= 4096 { break }
                }
            } catch {
                self.logger.debug("a Web Push answer's body broke off", metadata: ["endpoint": "\(endpoint.authority)", "error": "\(error)"])
            }
            await self.clients.release(client, transportFailed: false, endpoint: endpoint)
            return .answered(HTTP2Response(status: Int(response.status.code), headers: HTTP2Fields(response.headers.map { ($0.name, $0.value) }), body: body))
        } catch {
            if error is CancellationError || (error as? HTTPClientError) == .cancelled {
                await self.clients.release(client, transportFailed: false, endpoint: endpoint)
                return .verdict(.finish(.failed(DeliveryFailure(.cancelled, "cancelled"))))
            }
            // The host's address is looked up again before the next attempt: it may have moved.
            await self.clients.release(client, transportFailed: true, endpoint: endpoint)
            return .verdict(.retry(reason: "\(endpoint.authority): \(error)", after: nil, then: .none))
        }
    }
}
