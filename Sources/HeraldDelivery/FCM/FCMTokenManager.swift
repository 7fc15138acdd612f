import AsyncHTTPClient
public import Foundation
import JWTKit
public import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOSSL
import Synchronization

/// Gets and caches the OAuth 2.0 access token of one service account (fcm.md §1): an RS256 JWT
/// assertion exchanged at the token endpoint, shared by every connection of the project, renewed
/// at 80 % of its lifetime and when FCM answers a bare `401 UNAUTHENTICATED`.
///
/// Lifetimes are measured on an injected clock (a test clock in tests); the assertion's `iat` and
/// `exp` are wall time, which Google compares with its own.
public actor FCMTokenManager {
    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// Google caps an assertion's lifetime at an hour.
    static let assertionLifetime: TimeInterval = 3600
    static let refreshShare = 0.8
    /// Token answers are a small JSON object; anything larger is not a token endpoint.
    static let maximumResponse = 64 * 1024

    private struct Token {
        var value: String
        var refreshAt: DeliveryClock.Instant
        var expiresAt: DeliveryClock.Instant
    }

    /// How long a refused grant is answered from memory, so a revoked key does not send every
    /// notification to the token endpoint.
    static let permanentFailureMemory: TimeInterval = 30

    public nonisolated let serviceAccount: FCMServiceAccount
    private let keys: JWTKeyCollection
    /// Made at the first exchange, so a token manager that never fetched owns nothing to shut down.
    private var client: HTTPClient?
    private let clientConfiguration: HTTPClient.Configuration
    private let group: any EventLoopGroup
    private let requestTimeout: TimeAmount
    private nonisolated let clock: DeliveryClock
    private let now: @Sendable () -> Date
    private let onMint: (@Sendable () -> Void)?
    private var current: Token?
    private var fetching: Task<Token, any Error>?
    private var permanentFailure: (error: CredentialsError, until: DeliveryClock.Instant)?
    private var isShutDown = false
    /// The current `authorization` value and when to renew it, readable without entering the
    /// actor: every push needs it.
    private nonisolated let cached = Mutex<(value: String, until: DeliveryClock.Instant)?>(nil)
    /// Parsed in `init` so a bad key fails at start-up; added to `keys` (an actor) at first use.
    private var pendingKey: Insecure.RSA.PrivateKey?
    /// Access tokens obtained so far, for the token-refresh metric and tests.
    public private(set) var fetchCount = 0

    /// Fails when the service account's key is not an RSA private key of at least 2048 bits.
    /// `trustRootsPEM` replaces the system's roots for the token endpoint (tests, private CAs).
    /// `clock` times renewals, `now` gives the assertion's `iat` and `exp`.
    public init(
        serviceAccount: FCMServiceAccount,
        trustRootsPEM: [String]? = nil,
        group: any EventLoopGroup,
        requestTimeout: Duration = .seconds(15),
        clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = Date.init,
        onMint: (@Sendable () -> Void)? = nil
    ) throws {
        self.pendingKey = try Insecure.RSA.PrivateKey(pem: serviceAccount.privateKeyPEM)
        self.serviceAccount = serviceAccount
        self.keys = JWTKeyCollection()
        var configuration = HTTPClient.Configuration()
        if let trustRootsPEM {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(try trustRootsPEM.flatMap { try NIOSSLCertificate.fromPEMBytes(Array($0.utf8)) })
            configuration.tlsConfiguration = tls
        }
        configuration.redirectConfiguration = .disallow
        self.clientConfiguration = configuration
        self.group = group
        self.requestTimeout = TimeAmount(requestTimeout)
        self.clock = DeliveryClock(clock)
        self.now = now
        self.onMint = onMint
    }

    /// The current access token, fetched first when there is none or it reached 80 % of its life.
    public func token() async throws(CredentialsError) -> String {
        let now = self.clock.now
        if let current = self.current, now < current.refreshAt {
            return current.value
        }
        if let failure = self.permanentFailure, now < failure.until {
            throw failure.error
        }
        do {
            return try await self.fetch().value
        } catch {
            // A renewal that fails early leaves a token that still works: use it while it lasts.
            if !error.isPermanent, let current = self.current, self.clock.now < current.expiresAt {
                return current.value
            }
            if error.isPermanent {
                self.permanentFailure = (error, self.clock.now + .seconds(Self.permanentFailureMemory))
            }
            throw error
        }
    }

    /// Closes the token endpoint's connections.
    public func shutdown() async {
        self.isShutDown = true
        self.cached.withLock { $0 = nil }
        self.fetching?.cancel()
        let client = self.client
        self.client = nil
        try? await client?.shutdown()
    }

    private func httpClient() throws(CredentialsError) -> HTTPClient {
        guard !self.isShutDown else { throw CredentialsError("the FCM token manager is shut down", isPermanent: true) }
        if let client = self.client { return client }
        let client = HTTPClient(eventLoopGroup: self.group, configuration: self.clientConfiguration)
        self.client = client
        return client
    }

    private func fetch() async throws(CredentialsError) -> Token {
        // Callers arriving while a token is being fetched share that one exchange.
        let task: Task<Token, any Error>
        if let fetching = self.fetching {
            task = fetching
        } else {
            task = Task { try await self.exchange() }
            self.fetching = task
        }
        do {
            let token = try await task.value
            if self.fetching == task {
                self.fetching = nil
                self.current = token
                self.cached.withLock { $0 = ("Bearer " + token.value, token.refreshAt) }
                self.fetchCount += 1
                self.onMint?()
            }
            return token
        } catch {
            if self.fetching == task { self.fetching = nil }
            if let error = error as? CredentialsError { throw error }
            throw CredentialsError("cannot get an FCM access token from \(self.serviceAccount.tokenURI): \(error)", isPermanent: false)
        }
    }

    private func exchange() async throws -> Token {
        let assertion = try await self.assertion()
        var request = HTTPClientRequest(url: self.serviceAccount.tokenURI)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "accept", value: "application/json")
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion
        request.body = .bytes(ByteBuffer(string: form))
        let sentAt = self.clock.now
        let response = try await self.httpClient().execute(request, timeout: self.requestTimeout)
        let body = try await response.body.collect(upTo: Self.maximumResponse)
        let answer = try? JSONDecoder().decode(TokenAnswer.self, from: body)
        guard response.status == .ok else {
            let detail = [answer?.error, answer?.error_description].compactMap { $0 }.joined(separator: ": ")
            let reason = "the token endpoint answered \(response.status.code)" + (detail.isEmpty ? "" : " (\(detail))")
            // RFC 6749 §5.2 errors (a revoked key, a skewed clock) repeat until an operator acts;
            // a server error or throttling may pass.
            let isPermanent = (400..<500).contains(Int(response.status.code)) && response.status != .tooManyRequests
            throw CredentialsError(reason, isPermanent: isPermanent)
        }
        guard let answer, let value = answer.access_token, !value.isEmpty else {
            throw CredentialsError("the token endpoint's answer has no access_token", isPermanent: false)
        }
        guard Self.isBearerToken(value) else {
            throw CredentialsError("the token endpoint's access_token is not a visible-ASCII bearer token", isPermanent: false)
        }
        let lifetime = TimeInterval(min(max(answer.expires_in ?? 3600, 0), 86_400))
        return Token(value: value, refreshAt: sentAt + .seconds(lifetime * Self.refreshShare), expiresAt: sentAt + .seconds(lifetime))
    }

    /// An access token becomes the authorization header of every push, which the HTTP/2 layer
    /// sends unchecked: it must be an RFC 6750 b64token-like run of visible ASCII.
    static func isBearerToken(_ value: String) -> Bool {
        (1...8192).contains(value.utf8.count) && value.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    private func assertion() async throws -> String {
        if let key = self.pendingKey {
            await self.keys.add(rsa: key, digestAlgorithm: .sha256, kid: self.serviceAccount.privateKeyID.map { JWKIdentifier(string: $0) })
            self.pendingKey = nil
        }
        let issuedAt = Date(timeIntervalSince1970: self.now().timeIntervalSince1970.rounded(.down))
        let claims = FCMAssertionClaims(
            iss: IssuerClaim(value: self.serviceAccount.clientEmail),
            scope: Self.scope,
            aud: AudienceClaim(value: self.serviceAccount.tokenURI),
            iat: IssuedAtClaim(value: issuedAt),
            exp: ExpirationClaim(value: issuedAt.addingTimeInterval(Self.assertionLifetime))
        )
        return try await self.keys.sign(claims, kid: self.serviceAccount.privateKeyID.map { JWKIdentifier(string: $0) })
    }

    private struct TokenAnswer: Decodable {
        var access_token: String?
        var expires_in: Int?
        var error: String?
        var error_description: String?
    }
}

extension FCMTokenManager: ProviderCredentials {
    public nonisolated func authorization() async throws(CredentialsError) -> String {
        if let cached = self.cached.withLock({ $0 }), self.clock.now < cached.until { return cached.value }
        return "Bearer " + (try await self.token())
    }

    public func authorizationRejected(_ authorization: String) async {
        if let current = self.current, "Bearer " + current.value == authorization {
            self.current = nil
            self.cached.withLock { $0 = nil }
        }
    }
}

/// The claims of a service-account assertion (fcm.md §1.2).
struct FCMAssertionClaims: JWTPayload {
    var iss: IssuerClaim
    var scope: String
    var aud: AudienceClaim
    var iat: IssuedAtClaim
    var exp: ExpirationClaim

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
