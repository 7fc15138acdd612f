import Foundation
import HeraldCore
import HeraldDelivery
import HeraldStore
import HeraldTesting
import HTTPTypes
import MetricsTestKit
import Testing

@testable import HeraldSilent

/// Broadcast walks over a real store, paced on the test clock, pushing through the real providers
/// to the strict mock APNs and FCM.
@Suite struct SilentBroadcastsTests {
    static func broadcasts(_ store: LocalStore, providers: AppProviders, clock: TestClock, rate: Int = 1000, limits: SilentBroadcasts.Limits = .init()) -> SilentBroadcasts {
        var configuration = SilentConfiguration()
        configuration.app = "toot"
        let metrics = TestMetrics()
        let sender = SilentSender(
            providers: providers,
            configuration: configuration,
            limiter: DeviceRateLimiter(perHour: 0, clock: clock),
            metrics: SilentMetrics(factory: metrics),
            wallClock: Fixtures.wallClock
        )
        return SilentBroadcasts(
            view: store.view,
            markers: store.markers,
            sender: sender,
            metrics: SilentMetrics(factory: metrics),
            rate: rate,
            limits: limits,
            clock: clock,
            wallClock: Fixtures.wallClock,
            logger: Fixtures.logger
        )
    }

    /// Broadcast `id` as the store holds it.
    static func stored(_ id: String, in store: LocalStore) throws -> SilentBroadcast? {
        let now = UInt64(Fixtures.now.timeIntervalSince1970)
        return try store.markers.value(of: Array(id.utf8), in: .silentBroadcast, now: now).flatMap(SilentBroadcast.decoded)
    }

    /// Moves the clock along the walk's pacing until the store holds broadcast `id` as done (its
    /// last write), then reads it from `broadcasts`. Polling the store, not the actor, lets a walk
    /// that never yields fail the wait instead of hanging it.
    static func finish(_ id: String, of broadcasts: SilentBroadcasts, in store: LocalStore, on clock: TestClock) async throws -> SilentBroadcast? {
        try await clock.advancing(until: "broadcast \(id) is stored as done", observing: { try Self.stored(id, in: store) }) {
            $0?.status == .done
        }
        return await broadcasts.broadcast(id: id)
    }

    @Test func aBroadcastPushesEveryLiveRegistrationOfItsServiceOnce() async throws {
        try await withStore { store in
            let live = (0..<3).map { Fixtures.registration(deviceID: "ios-\($0)", token: Fixtures.apnsToken($0)) }
                + [Fixtures.registration(deviceID: "and-0", platform: .fcm, token: Fixtures.fcmToken(0))]
            let disabled = Fixtures.registration(deviceID: "off", token: Fixtures.apnsToken(90), enabled: false)
            let elsewhere = Fixtures.registration(service: "news", deviceID: "ios-0", token: Fixtures.apnsToken(91))
            try await seed(store, live + [disabled, elsewhere])
            try await ProviderPeers.with { peers in
                let clock = TestClock()
                let dead = Fixtures.apnsToken(2)
                peers.apns.script(token: dead, .unregistered(since: Fixtures.now))
                let broadcasts = Self.broadcasts(store, providers: peers.providers, clock: clock)
                let started = try await broadcasts.start(service: "default")
                #expect(started.status == .running)
                #expect(started.startedAt == Fixtures.now)
                let done = try await Self.finish(started.id, of: broadcasts, in: store, on: clock)
                #expect(done?.visited == 5, "every registration read, the disabled one too")
                #expect(done?.delivered == 3)
                #expect(done?.deadTokens == 1)
                #expect(done?.failed == 0)
                #expect(done?.finishedAt == Fixtures.now)
                #expect(peers.apns.requestCount + peers.fcm.sendRequestCount == live.count, "one push a live registration")
                let fcmTokens = peers.fcm.accepted.compactMap { message -> String? in
                    if case .token(let token) = message.target { token } else { nil }
                }
                let delivered = peers.apns.accepted.map(\.token) + fcmTokens
                #expect(delivered.count == live.count - 1)
                #expect(Set(delivered) == Set(live.map(\.device.token)).subtracting([dead]), "the dead token was answered 410")
                #expect(try Self.stored(started.id, in: store) == done)
                // Kept in the store: another instance (a restarted node) reads it as it ended.
                let restarted = Self.broadcasts(store, providers: peers.providers, clock: clock)
                #expect(await restarted.broadcast(id: started.id) == done)
                #expect(await restarted.broadcast(id: "no-such-broadcast") == nil)
                await broadcasts.stop()
            }
        }
    }

    /// Pushes leave the walk in batches (a page split by the window and `sendBatchSize`), each
    /// batch one `send(all:)` through both providers: across pages and a window smaller than a
    /// page, every device still gets one push and every answer is counted once.
    @Test func batchesAcrossPagesAndTheWindowPushEachDeviceOnce() async throws {
        try await withStore { store in
            let devices = (0..<150).map { index in
                index % 3 == 0
                    ? Fixtures.registration(deviceID: "and-\(index)", platform: .fcm, token: Fixtures.fcmToken(index))
                    : Fixtures.registration(deviceID: "ios-\(index)", token: Fixtures.apnsToken(index))
            }
            try await seed(store, devices)
            try await ProviderPeers.with { peers in
                let clock = TestClock()
                var limits = SilentBroadcasts.Limits()
                limits.window = 40
                let broadcasts = Self.broadcasts(store, providers: peers.providers, clock: clock, rate: 10_000, limits: limits)
                #expect(broadcasts.batchSize == 40, "pages of a window")
                let started = try await broadcasts.start(service: "default")
                let done = try await Self.finish(started.id, of: broadcasts, in: store, on: clock)
                #expect(done?.visited == 150)
                #expect(done?.delivered == 150)
                #expect(done?.failed == 0)
                #expect(peers.apns.requestCount == 100)
                #expect(peers.fcm.sendRequestCount == 50)
                let fcmTokens = peers.fcm.accepted.compactMap { message -> String? in
                    if case .token(let token) = message.target { token } else { nil }
                }
                #expect(Set(peers.apns.accepted.map(\.token) + fcmTokens) == Set(devices.map(\.device.token)))
                await broadcasts.stop()
            }
        }
    }

    @Test func resumeContinuesAfterTheStoredCursorAndLeavesFinishedBroadcastsAlone() async throws {
        try await withStore { store in
            let registrations = (0..<4).map { Fixtures.registration(deviceID: "device-\($0)", token: Fixtures.apnsToken($0)) }
            try await seed(store, registrations)
            // What a node that stopped after the first registration (in key order) left behind.
            let first = try store.view.registrations(keyPrefix: SilentRegistrations.keyPrefix(service: "default"), after: nil, limit: 1)
            var running = SilentBroadcast(id: "interrupted", service: "default", startedAt: Fixtures.now)
            running.visited = 1
            running.delivered = 1
            running.cursor = first.next
            var finished = SilentBroadcast(id: "finished", service: "default", startedAt: Fixtures.now)
            finished.status = .done
            let expiry = UInt64(Fixtures.now.timeIntervalSince1970 + 86_400)
            for broadcast in [running, finished] {
                try await store.markers.replace(Array(broadcast.id.utf8), in: .silentBroadcast, expiry: expiry, value: broadcast.stored)
            }
            try await ProviderPeers.with { peers in
                let clock = TestClock()
                let broadcasts = Self.broadcasts(store, providers: peers.providers, clock: clock)
                try await broadcasts.resume()
                let done = try await Self.finish("interrupted", of: broadcasts, in: store, on: clock)
                #expect(done?.visited == 4)
                #expect(done?.delivered == 4)
                let skipped = Set(first.registrations.map(\.device.token))
                #expect(skipped.count == 1)
                #expect(peers.apns.requestCount == 3)
                #expect(Set(peers.apns.accepted.map(\.token)) == Set(registrations.map(\.device.token)).subtracting(skipped))
                let untouched = await broadcasts.broadcast(id: "finished")
                #expect(untouched?.status == SilentBroadcast.Status.done)
                #expect(untouched?.visited == 0, "a finished broadcast is not walked again")
                await broadcasts.stop()
            }
        }
    }

    @Test func cancellingEndsTheWalkAndAStoppedNodeStartsNone() async throws {
        try await withStore { store in
            try await seed(store, (0..<3).map { Fixtures.registration(deviceID: "device-\($0)", token: Fixtures.apnsToken($0)) })
            try await ProviderPeers.with { peers in
                let clock = TestClock()
                // One push a second: the walk sends the first, takes its answer, then waits on the
                // clock for the next.
                let broadcasts = Self.broadcasts(store, providers: peers.providers, clock: clock, rate: 1)
                let started = try await broadcasts.start(service: "default")
                try await clock.waitForSleepers(1)
                #expect(peers.apns.requestCount == 1)
                let cancelled = try await broadcasts.cancel(id: started.id)
                #expect(cancelled?.status == SilentBroadcast.Status.cancelled)
                #expect(cancelled?.finishedAt == Fixtures.now)
                clock.advance(by: .seconds(10))
                #expect(peers.apns.requestCount == 1, "the walk ended with the cancellation")
                #expect(await broadcasts.broadcast(id: started.id)?.status == SilentBroadcast.Status.cancelled)
                #expect(try await broadcasts.cancel(id: started.id)?.status == SilentBroadcast.Status.cancelled, "cancelling again changes nothing")
                #expect(try await broadcasts.cancel(id: "no-such-broadcast") == nil)
                await broadcasts.stop()
                let afterStop = try await broadcasts.start(service: "default")
                #expect(afterStop.status == SilentBroadcast.Status.cancelled, "a stopping node starts no walk")
                #expect(peers.apns.requestCount == 1)
            }
        }
    }

    @Test func broadcastsPastTheCapsAreRefusedUntilOneEnds() async throws {
        try await withStore { store in
            let services = ["default", "news", "sport"]
            try await seed(store, services.flatMap { service in
                (0..<3).map { Fixtures.registration(service: service, deviceID: "\(service)-\($0)", token: Fixtures.apnsToken(services.firstIndex(of: service)! * 10 + $0)) }
            })
            try await ProviderPeers.with { peers in
                let clock = TestClock()
                var limits = SilentBroadcasts.Limits()
                limits.running = 2
                limits.runningPerService = 1
                // One push a second on a clock that stands still: every walk stays running.
                let broadcasts = Self.broadcasts(store, providers: peers.providers, clock: clock, rate: 1, limits: limits)
                let first = try await broadcasts.start(service: "default")
                let again = await #expect(throws: SilentError.self) { try await broadcasts.start(service: "default") }
                #expect(again == .busy("1 broadcast is running for service 'default' (silent.max-running-broadcasts-per-service: 1); ask again when it ends or cancel it", retryAfter: 30))
                #expect(again?.status == .tooManyRequests)
                let news = try await broadcasts.start(service: "news")
                let full = await #expect(throws: SilentError.self) { try await broadcasts.start(service: "sport") }
                #expect(full == .busy("2 broadcasts are running on this node (silent.max-running-broadcasts: 2); ask again when one ends", retryAfter: 30))
                #expect(await broadcasts.runningCount == 2)

                _ = try await broadcasts.cancel(id: news.id)
                #expect(await broadcasts.runningCount == 1, "a cancelled broadcast leaves memory")
                #expect(await broadcasts.broadcast(id: news.id)?.status == SilentBroadcast.Status.cancelled, "and is read from the store")
                let sport = try await broadcasts.start(service: "sport")
                #expect(sport.status == SilentBroadcast.Status.running)

                _ = try await Self.finish(first.id, of: broadcasts, in: store, on: clock)
                _ = try await Self.finish(sport.id, of: broadcasts, in: store, on: clock)
                try await waitUntil("finished broadcasts leave memory (running)", observing: { await broadcasts.runningCount }) { $0 == 0 }
                #expect(await broadcasts.broadcast(id: first.id)?.visited == 3, "a finished broadcast is read from the store")
                await broadcasts.stop()
            }
        }
    }

    @Test func aFinishedBroadcastIsKeptForItsRetention() async throws {
        try await withStore { store in
            try await seed(store, [Fixtures.registration(deviceID: "device-0", token: Fixtures.apnsToken(0))])
            try await ProviderPeers.with { peers in
                var limits = SilentBroadcasts.Limits()
                limits.retention = .seconds(3600)
                let clock = TestClock()
                let broadcasts = Self.broadcasts(store, providers: peers.providers, clock: clock, limits: limits)
                let started = try await broadcasts.start(service: "default")
                _ = try await Self.finish(started.id, of: broadcasts, in: store, on: clock)
                let now = UInt64(Fixtures.now.timeIntervalSince1970)
                #expect(try store.markers.value(of: Array(started.id.utf8), in: .silentBroadcast, now: now + 3599) != nil)
                #expect(try store.markers.value(of: Array(started.id.utf8), in: .silentBroadcast, now: now + 3600) == nil, "gone after silent.broadcast-retention")
                await broadcasts.stop()
            }
        }
    }
}
