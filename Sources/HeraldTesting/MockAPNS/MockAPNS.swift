import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS

/// A strict stand-in for APNs on 127.0.0.1: HTTP/2 over TLS with a certificate made at start,
/// checking every request as apns.md §8 describes and answering with APNs' status codes and
/// reasons. Tests script token states, failures, latency, stream limits and GOAWAY, and read back
/// what it accepted. `herald-dev mock-apns` runs one standalone.
public final class MockAPNS: Sendable {
    struct Shared {
        var accepted: [AcceptedPush] = []
        /// Every provider token that verified, whichever connection presented it.
        var providerTokens: Set<String> = []
        var tokenStates: [String: TokenState] = [:]
        var failEvery: (every: Int, status: Int, reason: String)?
        var failNext: [(status: Int, reason: String, retryAfter: Int?)] = []
        var requests = 0
        var validRequests = 0
        var latency: Duration = .zero
        var streamsAfterAuthentication: Int
        var connections: [Int: any Channel] = [:]
        var connectionStates: [Int: MockAPNSConnectionState] = [:]
        var nextConnectionID = 1
        var listener: (any Channel)?
        var isShutDown = false
        /// Broadcast channels by bundle id: id → message storage policy.
        var channels: [String: [String: Int]] = [:]
        var broadcasts: [AcceptedBroadcast] = []
    }

    let configuration: Configuration
    let keysByID: [String: SigningKey]
    let shared: NIOLockedValueBox<Shared>
    private let group: MultiThreadedEventLoopGroup
    /// PEM of the mock's self-signed certificate: clients trust it to connect.
    public let certificatePEM: String
    private let sslContext: NIOSSLContext

    private init(configuration: Configuration, threads: Int) throws {
        self.configuration = configuration
        self.keysByID = Dictionary(configuration.keys.map { ($0.keyID, $0) }, uniquingKeysWith: { _, last in last })
        self.shared = NIOLockedValueBox(Shared(streamsAfterAuthentication: configuration.streamsAfterAuthentication))
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        let certificate = try TestCertificate()
        self.certificatePEM = certificate.certificatePEM
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(certificate.certificatePEM.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(certificate.privateKeyPEM.utf8), format: .pem))
        )
        tls.applicationProtocols = ["h2"]
        tls.minimumTLSVersion = .tlsv12
        self.sslContext = try NIOSSLContext(configuration: tls)
    }

    /// Starts a mock listening on 127.0.0.1 (`port` 0 picks a free port).
    public static func start(configuration: Configuration, port: Int = 0, threads: Int = 1) async throws -> MockAPNS {
        let mock = try MockAPNS(configuration: configuration, threads: threads)
        let listener = try await ServerBootstrap(group: mock.group)
            .serverChannelOption(ChannelOptions.backlog, value: 1024)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: mock.sslContext))
                    try channel.pipeline.syncOperations.addHandler(
                        ApplicationProtocolNegotiationHandler { result, channel in
                            // APNs speaks HTTP/2 only; a client that did not negotiate h2 is turned away.
                            guard case .negotiated("h2") = result else { return channel.close() }
                            return channel.eventLoop.makeCompletedFuture { try mock.configureHTTP2(on: channel) }
                        }
                    )
                }
            }
            .bind(host: "127.0.0.1", port: port)
            .get()
        mock.shared.withLockedValue { $0.listener = listener }
        return mock
    }

    /// The port the mock listens on.
    public var port: Int {
        self.shared.withLockedValue { $0.listener?.localAddress?.port } ?? 0
    }

    /// Closes the listener and every connection, and stops the mock's threads. Safe to call twice.
    public func shutdown() async throws {
        let (alreadyDown, listener, connections) = self.shared.withLockedValue { shared in
            defer {
                shared.connections = [:]
                shared.isShutDown = true
            }
            return (shared.isShutDown, shared.listener, Array(shared.connections.values))
        }
        guard !alreadyDown else { return }
        try? await listener?.close()
        for connection in connections { try? await connection.close() }
        try await self.group.shutdownGracefully()
    }

    // MARK: Scripting

    /// Answers every push to `token` as a token in `state` would be answered; `nil` clears it.
    public func script(token: String, _ state: TokenState?) {
        self.shared.withLockedValue { $0.tokenStates[token.lowercased()] = state }
    }

    /// Answers every `every`-th valid request with `status` and `reason` (`nil` stops it).
    public func fail(every: Int?, status: Int = 500, reason: String = "InternalServerError") {
        self.shared.withLockedValue { $0.failEvery = every.map { (max($0, 1), status, reason) } }
    }

    /// Answers the next `count` valid requests with `status` and `reason` (and `Retry-After`
    /// seconds when given), then goes back to normal.
    public func failNext(_ count: Int, status: Int, reason: String, retryAfterSeconds: Int? = nil) {
        self.shared.withLockedValue { shared in
            shared.failNext += Array(repeating: (status, reason, retryAfterSeconds), count: max(count, 0))
        }
    }

    /// Delays every answer by `latency`.
    public func setLatency(_ latency: Duration) {
        self.shared.withLockedValue { $0.latency = latency }
    }

    /// Announces a new `SETTINGS_MAX_CONCURRENT_STREAMS` on every open connection (and uses it
    /// for connections that authenticate later).
    public func setMaxConcurrentStreams(_ limit: Int) {
        let connections = self.shared.withLockedValue { shared in
            shared.streamsAfterAuthentication = limit
            return Array(shared.connections.values)
        }
        for connection in connections {
            connection.writeAndFlush(Self.settings(maxConcurrentStreams: limit), promise: nil)
        }
    }

    /// Sends GOAWAY with `{"reason": reason}` on every open connection, naming the highest stream
    /// seen so far as the last one processed, then closes them after `grace`.
    public func sendGoAway(reason: String = "Shutdown", grace: Duration = .milliseconds(200)) {
        let targets = self.shared.withLockedValue { shared in
            shared.connections.map { id, channel in (channel, shared.connectionStates[id]) }
        }
        for (channel, state) in targets {
            // Fix the last processed stream in the same step that reads it, so no stream above
            // it can still be accepted.
            let last = state?.state.withLockedValue { connection in
                let last = connection.goAwayLastStreamID ?? connection.highestStreamID
                connection.goAwayLastStreamID = last
                return last
            } ?? 0
            let frame = HTTP2Frame(
                streamID: .rootStream,
                payload: .goAway(lastStreamID: HTTP2StreamID(last), errorCode: .noError, opaqueData: ByteBuffer(string: #"{"reason":"\#(reason)"}"#))
            )
            channel.writeAndFlush(frame, promise: nil)
            channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(grace.components.seconds * 1_000_000_000 + grace.components.attoseconds / 1_000_000_000))) {
                channel.close(promise: nil)
            }
        }
    }

    /// Closes every open connection at once, without GOAWAY, as a crashed peer or a broken network
    /// would. Requests in flight on them get no answer.
    public func dropConnections() {
        let connections = self.shared.withLockedValue { Array($0.connections.values) }
        for connection in connections { connection.close(mode: .all, promise: nil) }
    }

    // MARK: Reading back

    /// Every push answered 200, in the order answered.
    public var accepted: [AcceptedPush] { self.shared.withLockedValue { $0.accepted } }
    /// The distinct provider tokens that verified: how often the key's token changed, as Apple
    /// counts it.
    public var providerTokens: Set<String> { self.shared.withLockedValue { $0.providerTokens } }

    func recordProviderToken(_ jwt: String) {
        self.shared.withLockedValue { _ = $0.providerTokens.insert(jwt) }
    }
    /// Requests the mock validated, whatever it answered.
    public var requestCount: Int { self.shared.withLockedValue { $0.requests } }
    /// Connections currently open.
    public var openConnections: Int { self.shared.withLockedValue { $0.connections.count } }
    /// Connections accepted since start, closed ones included: what tells a replaced connection
    /// from one still open.
    public var connectionsOpened: Int { self.shared.withLockedValue { $0.nextConnectionID - 1 } }

    // MARK: Internals

    func record(_ push: AcceptedPush) {
        self.shared.withLockedValue { $0.accepted.append(push) }
    }

    func scriptedAnswer(token: String, id: String) -> Answer? {
        self.shared.withLockedValue { shared in
            if let state = shared.tokenStates[token.lowercased()] {
                switch state {
                case .unregistered(let since):
                    var answer = Answer.error(410, "Unregistered", id: id)
                    answer.timestamp = Int64(since.timeIntervalSince1970 * 1000)
                    return answer
                case .notForTopic:
                    return .error(400, "DeviceTokenNotForTopic", id: id)
                case .throttled(let retryAfter):
                    var answer = Answer.error(429, "TooManyRequests", id: id)
                    answer.retryAfter = retryAfter
                    return answer
                case .failing(let status, let reason):
                    return .error(status, reason, id: id)
                }
            }
            if !shared.failNext.isEmpty {
                let failure = shared.failNext.removeFirst()
                var answer = Answer.error(failure.status, failure.reason, id: id)
                answer.retryAfter = failure.retryAfter
                return answer
            }
            shared.validRequests += 1
            if let failEvery = shared.failEvery, shared.validRequests % failEvery.every == 0 {
                return .error(failEvery.status, failEvery.reason, id: id)
            }
            return nil
        }
    }

    var latency: Duration { self.shared.withLockedValue { $0.latency } }
    var streamsAfterAuthentication: Int { self.shared.withLockedValue { $0.streamsAfterAuthentication } }

    static func settings(maxConcurrentStreams: Int) -> HTTP2Frame {
        HTTP2Frame(streamID: .rootStream, payload: .settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: maxConcurrentStreams)])))
    }

    private func configureHTTP2(on channel: any Channel) throws {
        let state = self.shared.withLockedValue { shared in
            let state = MockAPNSConnectionState(id: shared.nextConnectionID)
            shared.nextConnectionID += 1
            shared.connections[state.id] = channel
            shared.connectionStates[state.id] = state
            return state
        }
        channel.closeFuture.whenComplete { [shared] _ in
            shared.withLockedValue { shared in
                shared.connections[state.id] = nil
                shared.connectionStates[state.id] = nil
            }
        }
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        connection.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: self.configuration.streamsBeforeAuthentication),
            HTTP2Setting(parameter: .maxHeaderListSize, value: HPACKDecoder.defaultMaxHeaderListSize),
        ]
        // The mock reports header mistakes itself, with APNs' reasons, instead of NIO resetting
        // the stream before it sees them.
        connection.headerBlockValidation = .disabled
        connection.contentLengthValidation = .disabled
        _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
            mode: .server,
            connectionConfiguration: connection,
            streamConfiguration: NIOHTTP2Handler.StreamConfiguration()
        ) { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(MockAPNSStreamHandler(mock: self, connection: state))
            }
        }
    }
}
