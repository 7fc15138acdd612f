import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS
import _CryptoExtras

/// A strict stand-in for FCM HTTP v1 and Google's OAuth token endpoint on 127.0.0.1: HTTP/2
/// (with HTTP/1.1 fallback) over TLS with a certificate made at start. It exchanges JWTs signed
/// by one service account for access tokens, checks every send as fcm.md §6 describes and answers
/// with FCM's google.rpc.Status envelopes. Tests script token states, failures, latency and token
/// revocation, and read back what it accepted. `herald-dev mock-fcm` runs one standalone.
public final class MockFCM: Sendable {
    struct Shared {
        var accepted: [AcceptedMessage] = []
        var acceptedCount = 0
        var tokenStates: [String: TokenState] = [:]
        var failNext: [(state: TokenState, remaining: Int)] = []
        /// Issued access tokens and when each expires.
        var accessTokens: [String: Date] = [:]
        var accessTokenLifetime: Int
        var accessTokensIssued = 0
        var tokenRequests = 0
        var sendRequests = 0
        var latency: Duration = .zero
        var listener: (any Channel)?
        /// The port bound at start, kept after shutdown.
        var port = 0
        var connections: [ObjectIdentifier: any Channel] = [:]
        var connectionsAccepted = 0
        var isShutDown = false
    }

    let configuration: Configuration
    let publicKey: _RSA.Signing.PublicKey
    let shared: NIOLockedValueBox<Shared>
    private let sslContext: NIOSSLContext
    /// PEM of the mock's self-signed certificate: clients trust it to connect.
    public let certificatePEM: String

    private init(configuration: Configuration) throws {
        self.configuration = configuration
        self.publicKey = try _RSA.Signing.PublicKey(pemRepresentation: configuration.publicKeyPEM)
        self.shared = NIOLockedValueBox(Shared(accessTokenLifetime: configuration.accessTokenLifetime))
        let certificate = try TestCertificate()
        self.certificatePEM = certificate.certificatePEM
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(certificate.certificatePEM.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(certificate.privateKeyPEM.utf8), format: .pem))
        )
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = ["h2", "http/1.1"]
        self.sslContext = try NIOSSLContext(configuration: tls)
    }

    /// Starts a mock listening on 127.0.0.1 (`port` 0 picks a free port) and returns once it
    /// listens.
    public static func start(configuration: Configuration, port: Int = 0) async throws -> MockFCM {
        let mock = try MockFCM(configuration: configuration)
        // The shared threads: the mock closes its connections itself, so it need not own (and
        // shut down) a group to be rid of them.
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 1024)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                mock.track(channel)
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: mock.sslContext))
                    try channel.pipeline.syncOperations.addHandler(
                        ApplicationProtocolNegotiationHandler { result, channel in
                            channel.eventLoop.makeCompletedFuture {
                                if case .negotiated("h2") = result {
                                    try mock.configureHTTP2(on: channel)
                                } else {
                                    try mock.configureHTTP1(on: channel)
                                }
                            }
                        }
                    )
                }
            }
            .bind(host: "127.0.0.1", port: port)
            .get()
        mock.shared.withLockedValue {
            $0.listener = listener
            $0.port = listener.localAddress?.port ?? 0
        }
        return mock
    }


    /// The port the mock listens on.
    public var port: Int { self.shared.withLockedValue { $0.port } }

    /// The token endpoint, for the service account's `token_uri` and the JWT's `aud`.
    public var tokenURI: String { "https://localhost:\(self.port)/token" }

    /// Where the send endpoint lives, in place of `https://fcm.googleapis.com`.
    public var baseURL: String { "https://localhost:\(self.port)" }

    /// Stops listening and closes every connection. Safe to call twice.
    public func shutdown() async {
        let (alreadyDown, listener) = self.shared.withLockedValue { shared in
            defer {
                shared.isShutDown = true
                shared.listener = nil
            }
            return (shared.isShutDown, shared.listener)
        }
        guard !alreadyDown else { return }
        try? await listener?.close()
        await self.closeConnections()
    }

    // MARK: Scripting

    /// Answers every send to device `token` as FCM answers a token in `state`; `nil` clears it.
    public func script(token: String, _ state: TokenState?) {
        self.shared.withLockedValue { $0.tokenStates[token] = state }
    }

    /// Answers the next `count` sends that pass validation (and whose token is not scripted) as
    /// `state`, then goes back to normal. `validate_only` sends count too, as FCM may fail them
    /// alike.
    public func failNext(_ count: Int, _ state: TokenState) {
        guard count > 0 else { return }
        self.shared.withLockedValue { $0.failNext.append((state, count)) }
    }

    /// Makes every access token issued so far unknown: the next send with one gets a bare
    /// `401 UNAUTHENTICATED`, as after Google revokes or expires it.
    public func revokeAccessTokens() {
        self.shared.withLockedValue { $0.accessTokens.removeAll() }
    }

    /// The `expires_in` of access tokens issued from now on; short lifetimes exercise refresh.
    public func setAccessTokenLifetime(seconds: Int) {
        self.shared.withLockedValue { $0.accessTokenLifetime = seconds }
    }

    /// Closes every open connection at once, as a crashed peer or a broken network would;
    /// requests in flight on them get no answer.
    public func dropConnections() {
        let connections = self.shared.withLockedValue { Array($0.connections.values) }
        for connection in connections { connection.close(mode: .all, promise: nil) }
    }

    /// Delays every answer of the send endpoint by `latency`.
    public func setLatency(_ latency: Duration) {
        self.shared.withLockedValue { $0.latency = latency }
    }

    // MARK: Reading back

    /// Messages answered 200 without `validate_only`, in the order answered (the first
    /// 1,000,000).
    public var accepted: [AcceptedMessage] { self.shared.withLockedValue { $0.accepted } }
    /// How many messages were accepted, including any beyond the record's limit.
    public var acceptedCount: Int { self.shared.withLockedValue { $0.acceptedCount } }
    /// Access tokens the token endpoint granted.
    public var accessTokensIssued: Int { self.shared.withLockedValue { $0.accessTokensIssued } }
    /// Requests to the token endpoint, whatever it answered.
    public var tokenRequestCount: Int { self.shared.withLockedValue { $0.tokenRequests } }
    /// Requests to the send endpoint, whatever it answered.
    public var sendRequestCount: Int { self.shared.withLockedValue { $0.sendRequests } }
    /// Client connections currently open.
    public var openConnections: Int { self.shared.withLockedValue { $0.connections.count } }

    /// Client connections accepted since the mock started, open or closed.
    public var connectionsAccepted: Int { self.shared.withLockedValue { $0.connectionsAccepted } }

    // MARK: Internals

    var latency: Duration { self.shared.withLockedValue { $0.latency } }

    /// Closes every open connection and waits until each is closed.
    private func closeConnections() async {
        let connections = self.shared.withLockedValue { Array($0.connections.values) }
        // All at once: each may wait out TLS's close_notify timeout.
        for connection in connections { connection.close(mode: .all, promise: nil) }
        for connection in connections { try? await connection.closeFuture.get() }
    }

    /// Counts an accepted connection and keeps it, to drop or close at shutdown, until it closes.
    private func track(_ connection: any Channel) {
        let id = ObjectIdentifier(connection)
        let shuttingDown = self.shared.withLockedValue { shared in
            shared.connectionsAccepted += 1
            guard !shared.isShutDown else { return true }
            shared.connections[id] = connection
            return false
        }
        // Accepted while the listener was closing, after `shutdown` took its list.
        guard !shuttingDown else {
            connection.close(promise: nil)
            return
        }
        connection.closeFuture.whenComplete { [shared] _ in
            shared.withLockedValue { _ = $0.connections.removeValue(forKey: id) }
        }
    }

    private func configureHTTP2(on channel: any Channel) throws {
        // NIOHTTP2's first SETTINGS: 100 streams at once, as Google's front ends announce.
        _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
            mode: .server,
            connectionConfiguration: NIOHTTP2Handler.ConnectionConfiguration(),
            streamConfiguration: NIOHTTP2Handler.StreamConfiguration()
        ) { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(MockFCMStreamHandler(mock: self))
            }
        }
    }

    private func configureHTTP1(on channel: any Channel) throws {
        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
        try channel.pipeline.syncOperations.addHandler(MockFCMHTTP1Handler(mock: self))
    }
}
