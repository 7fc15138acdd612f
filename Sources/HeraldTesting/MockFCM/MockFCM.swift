import Foundation
import Hummingbird
import HummingbirdHTTP2
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import ServiceLifecycle
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
        var port = 0
        var server: (group: ServiceGroup, task: Task<Void, Never>)?
        var connections: [ObjectIdentifier: any Channel] = [:]
        var connectionsAccepted = 0
        var isShutDown = false
    }

    enum StartError: Error {
        /// The server stopped before it was listening; `underlying` says why, when known.
        case stoppedBeforeListening(underlying: (any Error)?)
    }

    let configuration: Configuration
    let publicKey: _RSA.Signing.PublicKey
    let shared: NIOLockedValueBox<Shared>
    private let tlsConfiguration: TLSConfiguration
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
        self.tlsConfiguration = tls
    }

    /// Starts a mock listening on 127.0.0.1 (`port` 0 picks a free port) and returns once it
    /// listens.
    public static func start(configuration: Configuration, port: Int = 0) async throws -> MockFCM {
        let mock = try MockFCM(configuration: configuration)
        let (listening, listened) = AsyncStream.makeStream(of: Result<Int, StartError>.self)
        let application = Application(
            router: mock.router(),
            server: try .http2Upgrade(tlsConfiguration: mock.tlsConfiguration),
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { listener in
                do {
                    try await mock.trackConnections(on: listener)
                    listened.yield(.success(listener.localAddress?.port ?? 0))
                } catch {
                    listened.yield(.failure(.stoppedBeforeListening(underlying: error)))
                }
            },
            // The shared threads: the mock closes its connections itself, so it need not own
            // (and shut down) a group to be rid of them.
            eventLoopGroupProvider: .singleton,
            // A test peer stays quiet; its record is what tests read.
            logger: Logger(label: "herald.mock-fcm", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        // A group of its own, so a test can start and stop the mock in one scope. It is stopped
        // by graceful shutdown: cancelled, Hummingbird traps on a connection it was accepting
        // (see `LoopbackServer`).
        var groupConfiguration = ServiceGroupConfiguration(
            services: [application],
            gracefulShutdownSignals: [],
            logger: Logger(label: "herald.mock-fcm", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        // A send held by scripted latency must not hold a test up (see `LoopbackServer`).
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(10)
        let group = ServiceGroup(configuration: groupConfiguration)
        let task = Task {
            do {
                try await group.run()
                listened.yield(.failure(.stoppedBeforeListening(underlying: nil)))
            } catch {
                listened.yield(.failure(.stoppedBeforeListening(underlying: error)))
            }
            listened.finish()
        }
        let server = (group: group, task: task)
        mock.shared.withLockedValue { $0.server = server }
        var results = listening.makeAsyncIterator()
        switch await results.next() {
        case .success(let boundPort):
            mock.shared.withLockedValue { $0.port = boundPort }
            return mock
        case .failure(let error):
            await mock.shutdown()
            throw error
        case nil:
            await mock.shutdown()
            throw StartError.stoppedBeforeListening(underlying: nil)
        }
    }

    /// The port the mock listens on.
    public var port: Int { self.shared.withLockedValue { $0.port } }

    /// The token endpoint, for the service account's `token_uri` and the JWT's `aud`.
    public var tokenURI: String { "https://localhost:\(self.port)/token" }

    /// Where the send endpoint lives, in place of `https://fcm.googleapis.com`.
    public var baseURL: String { "https://localhost:\(self.port)" }

    /// Stops listening and closes every connection. Safe to call twice.
    public func shutdown() async {
        let (alreadyDown, server) = self.shared.withLockedValue { shared in
            defer {
                shared.isShutDown = true
                shared.server = nil
            }
            return (shared.isShutDown, shared.server)
        }
        guard !alreadyDown else { return }
        await server?.group.triggerGracefulShutdown()
        // Hummingbird waits for open connections to end; a client keeping its connection alive
        // would hold the shutdown up, so the mock ends them itself.
        await self.closeConnections()
        await server?.task.value
        // One accepted while the listener was closing.
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
        for connection in connections {
            connection.close(mode: .all, promise: nil)
            try? await connection.closeFuture.get()
        }
    }

    /// Puts a `MockFCMConnectionTracker` first on the listener, before any client can connect.
    private func trackConnections(on listener: any Channel) async throws {
        try await listener.eventLoop.submit { [shared] in
            let tracker = MockFCMConnectionTracker { connection in
                let id = ObjectIdentifier(connection)
                shared.withLockedValue {
                    $0.connections[id] = connection
                    $0.connectionsAccepted += 1
                }
                connection.closeFuture.whenComplete { _ in
                    shared.withLockedValue { _ = $0.connections.removeValue(forKey: id) }
                }
            }
            try listener.pipeline.syncOperations.addHandler(tracker, position: .first)
        }.get()
    }
}
