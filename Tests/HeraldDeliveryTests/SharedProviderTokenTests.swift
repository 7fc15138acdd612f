import Crypto
import Foundation
import HeraldTesting
import Synchronization
import Testing

@testable import HeraldDelivery

/// Three nodes' token managers for one APNs key, sharing tokens through a store in memory: one
/// token at a time however many nodes ask, a new one per refresh period, and a node that cannot
/// reach the store signs its own and says so.
@Suite struct SharedProviderTokenTests {
    /// Compare-and-set in memory, as etcd's shared values are.
    final class MemoryTokens: SharedProviderTokens {
        let state = Mutex<(token: SharedProviderToken?, version: Int64, stores: Int)>((nil, 0, 0))
        let failing = Atomic<Bool>(false)
        struct Unreachable: Error {}

        func read(_ name: String) async throws -> (token: SharedProviderToken?, version: Int64) {
            guard !self.failing.load(ordering: .relaxed) else { throw Unreachable() }
            return self.state.withLock { ($0.token, $0.version) }
        }

        func store(_ token: SharedProviderToken, as name: String, ifVersion version: Int64) async throws -> Bool {
            guard !self.failing.load(ordering: .relaxed) else { throw Unreachable() }
            return self.state.withLock { state in
                guard state.version == version else { return false }
                state = (token, version + 1, state.stores + 1)
                return true
            }
        }
    }

    let key = P256.Signing.PrivateKey()

    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    func managers(_ count: Int, sharing: MemoryTokens, time: APNSTokenManagerTests.FakeTime, fallbacks: Counter = Counter()) throws -> [APNSTokenManager] {
        try (0..<count).map { _ in
            try APNSTokenManager(
                credentials: .init(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", privateKeyPEM: self.key.pemRepresentation),
                clock: time.clock,
                now: { time.now },
                sharing: sharing,
                onSharedFallback: { fallbacks.value.add(1, ordering: .relaxed) }
            )
        }
    }

    static func tokens(of managers: [APNSTokenManager]) async throws -> Set<String> {
        try await withThrowingTaskGroup(of: String.self) { group in
            for manager in managers {
                for _ in 0..<5 { group.addTask { try await manager.token() } }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
    }

    @Test func threeNodesUseOneTokenPerRefreshPeriod() async throws {
        let time = APNSTokenManagerTests.FakeTime()
        let sharing = MemoryTokens()
        let nodes = try self.managers(3, sharing: sharing, time: time)
        let first = try await Self.tokens(of: nodes)
        #expect(first.count == 1, "every node uses the stored token")
        #expect(sharing.state.withLock { $0.stores } == 1)

        time.advance(minutes: 49)
        #expect(try await Self.tokens(of: nodes) == first)
        time.advance(minutes: 1.5)
        let second = try await Self.tokens(of: nodes)
        #expect(second.count == 1 && second != first, "one new token for the new period")
        #expect(sharing.state.withLock { $0.stores } == 2)
        #expect(sharing.state.withLock { $0.token?.value } == second.first)
    }

    @Test func aNodeStartingLateAdoptsTheStoredTokenByItsAge() async throws {
        let time = APNSTokenManagerTests.FakeTime()
        let sharing = MemoryTokens()
        let early = try self.managers(1, sharing: sharing, time: time)[0]
        let token = try await early.token()
        time.advance(minutes: 45)
        let late = try self.managers(1, sharing: sharing, time: time)[0]
        #expect(try await late.token() == token)
        #expect(await late.mintCount == 0)
        // Adopted at 45 minutes old, it is renewed 5 minutes later, with everyone else's.
        time.advance(minutes: 6)
        let renewed = try await late.token()
        #expect(renewed != token)
        #expect(try await early.token() == renewed)
    }

    @Test func aRejectedTokenIsReplacedOnceClusterWide() async throws {
        let time = APNSTokenManagerTests.FakeTime()
        let sharing = MemoryTokens()
        let nodes = try self.managers(2, sharing: sharing, time: time)
        let token = try await nodes[0].token()
        #expect(try await nodes[1].token() == token)
        time.advance(minutes: 25)
        // APNs says it expired (clocks disagree): the first node replaces it, the second, told
        // the same, finds the replacement stored and uses it.
        let replaced = try await nodes[0].tokenRejected(token)
        #expect(replaced != token)
        #expect(try await nodes[1].tokenRejected(token) == replaced)
        #expect(sharing.state.withLock { $0.stores } == 2)
    }

    @Test func aNodeThatCannotReachTheStoreSignsItsOwnAndCountsIt() async throws {
        let time = APNSTokenManagerTests.FakeTime()
        let sharing = MemoryTokens()
        sharing.failing.store(true, ordering: .relaxed)
        let fallbacks = Counter()
        let node = try self.managers(1, sharing: sharing, time: time, fallbacks: fallbacks)[0]
        _ = try await node.token()
        #expect(await node.mintCount == 1)
        #expect(fallbacks.value.load(ordering: .relaxed) == 1)
    }
}
