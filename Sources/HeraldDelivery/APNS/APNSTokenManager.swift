public import HeraldCore
public import Foundation
import JWTKit
import Synchronization

/// Mints and caches the ES256 provider token of one APNs signing key, shared by every connection
/// that uses the key.
///
/// APNs refuses tokens older than an hour and answers `TooManyProviderTokenUpdates` when a token
/// changes more than once in 20 minutes, so a token is re-minted at 50 minutes and never before
/// 20, even when APNs claims it expired.
///
/// A token's age is measured on an injected clock (a test clock in tests); its `iat` is wall
/// time, which APNs compares with its own.
///
/// In a cluster the nodes share the token (`SharedProviderTokens`): a node needing one uses the
/// stored token while it is young enough, by its `iat`, and otherwise signs one and stores it
/// unless another node stored one first, which it then uses. A node that cannot reach the store
/// uses a token of its own and says so (`onSharedFallback`).
public actor APNSTokenManager {
    public struct Credentials: Sendable, Hashable, KeyMaterial {
        /// The 10-character Key ID of the `.p8` key.
        public var keyID: String
        /// The 10-character Team ID.
        public var teamID: String
        /// The `.p8` file's contents: a PKCS#8 PEM P-256 private key.
        public var privateKeyPEM: String

        public init(keyID: String, teamID: String, privateKeyPEM: String) {
            self.keyID = keyID
            self.teamID = teamID
            self.privateKeyPEM = privateKeyPEM
        }
    }

    public static let refreshAge: TimeInterval = 50 * 60
    public static let minimumAge: TimeInterval = 20 * 60

    private struct Token {
        var value: String
        var issuedAt: Date
        /// When it was minted on `clock`: its age, unmoved by changes to the wall clock.
        var mintedAt: DeliveryClock.Instant
    }

    public nonisolated let credentials: Credentials
    private let keys: JWTKeyCollection
    private nonisolated let clock: DeliveryClock
    private let now: @Sendable () -> Date
    private let onMint: (@Sendable () -> Void)?
    private let sharing: (any SharedProviderTokens)?
    private let onSharedFallback: (@Sendable () -> Void)?
    private var current: Token?
    /// The current `authorization` value and until when to use it, readable without entering
    /// the actor: every push needs it.
    private nonisolated let cached = Mutex<(value: String, until: DeliveryClock.Instant)?>(nil)
    private var minting: Task<Token, any Error>?
    /// Parsed in `init` so a bad key fails at start-up; added to `keys` (an actor) at first use.
    private var pendingKey: ES256PrivateKey?
    /// Tokens this node signed so far, for the `token refreshes` metric and tests.
    public private(set) var mintCount = 0

    /// Where the key's token is shared with the other nodes: `apns/<team>/<key>`.
    public nonisolated var sharedName: String { "apns/\(self.credentials.teamID)/\(self.credentials.keyID)" }

    /// Fails when the key is not a P-256 private key in PEM form. `clock` times the token's
    /// renewal, `now` gives its `iat`; `onMint` is told of every new token (the token-refresh
    /// metric).
    public init(
        credentials: Credentials,
        clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = Date.init,
        onMint: (@Sendable () -> Void)? = nil,
        sharing: (any SharedProviderTokens)? = nil,
        onSharedFallback: (@Sendable () -> Void)? = nil
    ) throws {
        let key = try ES256PrivateKey(pem: credentials.privateKeyPEM)
        self.credentials = credentials
        self.keys = JWTKeyCollection()
        self.clock = DeliveryClock(clock)
        self.now = now
        self.onMint = onMint
        self.sharing = sharing
        self.onSharedFallback = onSharedFallback
        self.pendingKey = key
    }

    /// The current token, minted first when there is none or it is 50 minutes old.
    public func token() async throws -> String {
        if let current = self.current, self.clock.now - current.mintedAt < .seconds(Self.refreshAge) {
            return current.value
        }
        return try await self.mint().value
    }

    /// Called when APNs answered `ExpiredProviderToken` for `rejected`: mints a new token unless
    /// the current one is younger than 20 minutes (then the clocks disagree, and churning tokens
    /// would only earn `TooManyProviderTokenUpdates`).
    public func tokenRejected(_ rejected: String) async throws -> String {
        if let current = self.current, current.value != rejected || self.clock.now - current.mintedAt < .seconds(Self.minimumAge) {
            return current.value
        }
        return try await self.mint(replacing: rejected).value
    }

    private func mint(replacing rejected: String? = nil) async throws -> Token {
        // Callers arriving while a token is being obtained share that one.
        if let minting = self.minting { return try await minting.value }
        let task = Task { try await self.obtain(replacing: rejected) }
        self.minting = task
        defer { self.minting = nil }
        let token = try await task.value
        self.current = token
        self.cached.withLock { $0 = ("bearer " + token.value, token.mintedAt + .seconds(Self.refreshAge)) }
        return token
    }

    /// The shared token when it is young enough and not the one APNs rejected, else one signed
    /// here (and stored for the others, unless one of them stored theirs first).
    private func obtain(replacing rejected: String?) async throws -> Token {
        guard let sharing = self.sharing else { return try await self.sign() }
        do {
            let (shared, version) = try await sharing.read(self.sharedName)
            if let shared, shared.value != rejected, let token = self.adopt(shared) { return token }
            let own = try await self.sign()
            if try await sharing.store(SharedProviderToken(value: own.value, issuedAt: own.issuedAt), as: self.sharedName, ifVersion: version) {
                return own
            }
            let (winner, _) = try await sharing.read(self.sharedName)
            if let winner, winner.value != rejected, let token = self.adopt(winner) { return token }
            return own
        } catch {
            self.onSharedFallback?()
            return try await self.sign()
        }
    }

    /// A shared token as this node's own, aged by its `iat`; `nil` when it is due for renewal
    /// (or claims to come from the future, past any clock skew APNs would accept).
    private func adopt(_ shared: SharedProviderToken) -> Token? {
        let age = self.now().timeIntervalSince(shared.issuedAt)
        guard age < Self.refreshAge, age > -60 else { return nil }
        return Token(value: shared.value, issuedAt: shared.issuedAt, mintedAt: self.clock.now - .seconds(max(age, 0)))
    }

    private func sign() async throws -> Token {
        if let key = self.pendingKey {
            await self.keys.add(ecdsa: key, kid: JWKIdentifier(string: self.credentials.keyID))
            self.pendingKey = nil
        }
        let mintedAt = self.clock.now
        // Whole seconds: APNs documents `iat` as an integer, and jwt-kit would otherwise write a fraction.
        let issuedAt = Date(timeIntervalSince1970: self.now().timeIntervalSince1970.rounded(.down))
        let claims = APNSProviderClaims(iss: IssuerClaim(value: self.credentials.teamID), iat: IssuedAtClaim(value: issuedAt))
        let value = try await self.keys.sign(claims, kid: JWKIdentifier(string: self.credentials.keyID))
        self.mintCount += 1
        self.onMint?()
        return Token(value: value, issuedAt: issuedAt, mintedAt: mintedAt)
    }
}

/// The claims of an APNs provider token: the team and the time of issue, nothing else.
struct APNSProviderClaims: JWTPayload {
    var iss: IssuerClaim
    var iat: IssuedAtClaim

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension APNSTokenManager: ProviderCredentials {
    public nonisolated func authorization() async throws(CredentialsError) -> String {
        if let cached = self.cached.withLock({ $0 }), self.clock.now < cached.until { return cached.value }
        return try await self.mintedAuthorization()
    }

    private func mintedAuthorization() async throws(CredentialsError) -> String {
        do {
            return "bearer " + (try await self.token())
        } catch {
            // The key parsed at start-up, so signing can only fail for a reason that repeats.
            throw CredentialsError("cannot sign an APNs provider token: \(error)", isPermanent: true)
        }
    }

    public func authorizationRejected(_ authorization: String) async {
        _ = try? await self.tokenRejected(String(authorization.dropFirst("bearer ".count)))
    }
}
