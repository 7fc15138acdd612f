import Foundation
import HeraldCore
import HeraldServer
@testable import HeraldSilent
import HeraldStore
import HeraldTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Silent sync through a node: NotifyMe registrations (from an independent Python protobuf
/// client, and in JSON), "sync now" pushes as Apple and Google want silent pushes, the per-device
/// limits, and broadcasts.
@Suite struct SilentEndToEndTests {
    typealias Harness = PushNodeHarness

    static let silentYAML = """
        silent:
          app: toot
          sandbox-app: toot-dev

        """
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("silent/notifyme_client.py").path
    static let protoDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/HeraldSilent/Protobuf").path

    static func with(
        extraYAML: String = "",
        clock: any Clock<Duration> = ContinuousClock(),
        setup: TestingSetup = .router,
        _ body: @escaping @Sendable (Harness) async throws -> Void
    ) async throws {
        try await Harness.with(frontDoorYAML: Self.silentYAML, extraYAML: extraYAML, clock: clock, setup: setup, body)
    }

    /// Registers in proto3 JSON, the form an app backend can send without protobuf.
    static func register(_ h: Harness, deviceID: String, type: String = "IOS", token: String, path: String = "/v3/register") async throws -> TestResponse {
        let body = #"{"version":1,"pushToken":"\#(token)","pushType":"\#(type)","deviceId":"\#(deviceID)"}"#
        return try await h.client.execute(uri: path, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
    }

    static func sync(_ h: Harness, _ deviceIDs: [String], service: String = "default") async throws -> [String: Int] {
        let list = deviceIDs.map { "\"\($0)\"" }.joined(separator: ",")
        let response = try await h.client.execute(
            uri: "/silent/v1/sync",
            method: .post,
            headers: [.contentType: "application/json", .authorization: "Bearer \(Harness.apiToken)"],
            body: ByteBuffer(string: #"{"service":"\#(service)","device_ids":[\#(list)]}"#)
        )
        #expect(response.status == .ok, "\(String(buffer: response.body))")
        return (try? JSONDecoder().decode([String: Int].self, from: Data(response.body.readableBytesView))) ?? [:]
    }

    /// A broadcast's state as `GET` at its location answers it.
    static func broadcast(_ h: Harness, at location: String) async throws -> [String: Any] {
        let response = try await h.client.execute(uri: location, method: .get, headers: [.authorization: "Bearer \(Harness.apiToken)"])
        return (try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]) ?? [:]
    }

    // MARK: Registration

    @Test func pythonProtobufClientRegistersUpdatesMovesAndUnregisters() async throws {
        try await Self.with(setup: .live) { h in
            let port = try #require(h.client.port)
            let url = "http://127.0.0.1:\(port)/v3/register"
            let first = Harness.apnsToken(300)
            let second = Harness.apnsToken(301)
            let steps: [[String: String]] = [
                ["url": url, "deviceId": "A-INSTALL", "pushType": "IOS", "pushToken": first],
                ["url": url, "deviceId": "A-INSTALL", "pushType": "IOS", "pushToken": second],
                ["url": url, "deviceId": "B-INSTALL", "pushType": "IOS", "pushToken": second],
                ["url": url.replacingOccurrences(of: "/v3/", with: "/v1/"), "deviceId": "C-INSTALL", "pushType": "AND", "pushToken": Harness.fcmToken(300)],
                ["url": url, "deviceId": "D-INSTALL", "pushType": "IOD", "pushToken": Harness.apnsToken(302)],
                ["url": url, "deviceId": "B-INSTALL", "pushType": "IOS", "pushToken": "   "],
                ["url": url, "deviceId": "", "pushType": "IOS", "pushToken": first],
                ["url": url, "deviceId": "E", "pushType": "IOS", "pushToken": first, "content_type": "text/plain"],
            ]
            let results = try await self.runClient(steps, directory: h.directory)
            #expect(results.map { $0["status"] as? Int } == [200, 200, 200, 200, 200, 200, 400, 415])
            #expect(results.first?["body"] as? String == "", "NotifyMe's backend answers 200 with an empty body")
            #expect((results[6]["body"] as? String)?.contains("deviceId") == true)

            let counts = try await Self.sync(h, ["A-INSTALL", "B-INSTALL", "C-INSTALL", "D-INSTALL"])
            #expect(counts["delivered"] == 2, "C on FCM and D on the sandbox")
            #expect(counts["unregistered"] == 2, "A lost its token to B, and B unregistered")
            #expect(h.production.accepted.isEmpty)
            #expect(h.sandbox.accepted.map(\.token) == [Harness.apnsToken(302)])
            #expect(h.fcm.accepted.map(\.target) == [.token(Harness.fcmToken(300))])
        }
    }

    @Test func silentPushesAreBackgroundPushesAndDataOnlyMessages() async throws {
        try await Self.with { h in
            let registered1 = try await Self.register(h, deviceID: "ios-1", token: Harness.apnsToken(310))
            #expect(registered1.status == .ok)
            let registered2 = try await Self.register(h, deviceID: "and-1", type: "AND", token: Harness.fcmToken(310))
            #expect(registered2.status == .ok)
            let before = Int(Date().timeIntervalSince1970)
            let counts = try await Self.sync(h, ["ios-1", "and-1", "nobody"])
            // The push was built between the two readings, however long a busy machine took.
            let after = Int(Date().timeIntervalSince1970)
            #expect(counts["delivered"] == 2)
            #expect(counts["unregistered"] == 1)
            let push = try #require(h.production.accepted.first)
            #expect(push.pushType == "background")
            #expect(push.priority == "5", "APNs refuses 10 for background pushes")
            #expect(push.collapseID == "herald-sync")
            #expect(Harness.json(push.payload).keys.sorted() == ["aps"])
            #expect((Harness.json(push.payload)["aps"] as? [String: Int]) == ["content-available": 1])
            let expirationText = try #require(push.expiration)
            let expiration = try #require(Int(expirationText))
            #expect((before + 900...after + 901).contains(expiration))
            let message = try #require(h.fcm.accepted.first)
            #expect(message.data == ["sync": "1"])
            #expect(message.androidPriority == "NORMAL")
            #expect(message.androidCollapseKey == "herald-sync")
            #expect(!String(decoding: message.message, as: UTF8.self).contains("notification"), "data-only")
        }
    }

    @Test func refusedRegistrationsSayWhy() async throws {
        try await Self.with(extraYAML: "") { h in
            let badToken = try await Self.register(h, deviceID: "x", token: "not-hex")
            #expect(badToken.status == .badRequest)
            #expect(String(buffer: badToken.body).contains("APNs device token"))
            let badType = try await h.client.execute(
                uri: "/v3/register",
                method: .post,
                headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"pushToken":"abab","pushType":"WEB","deviceId":"x"}"#)
            )
            #expect(badType.status == .badRequest)
            let garbage = try await h.client.execute(
                uri: "/v3/register",
                method: .post,
                headers: [.contentType: "application/x-protobuf"],
                body: ByteBuffer(bytes: [0xFF, 0xFF, 0xFF])
            )
            #expect(garbage.status == .badRequest)
            // The sync API is the operator's: it needs the API token.
            let unauthenticated = try await h.client.execute(uri: "/silent/v1/sync", method: .post, body: ByteBuffer(string: "{}"))
            #expect(unauthenticated.status == .unauthorized)
        }
    }

    @Test func unregisterWithoutARegistrationIsFine() async throws {
        try await Self.with { h in
            let registered3 = try await Self.register(h, deviceID: "ghost", token: "")
            #expect(registered3.status == .ok)
            let count = try h.node.store.view.recordCount()
            #expect(count == 0, "nothing is written for nothing")
        }
    }

    @Test func theDeviceIDNeverReachesTheStore() async throws {
        try await Self.with { h in
            let deviceID = "SECRET-DEVICE-ID-1234"
            let registered4 = try await Self.register(h, deviceID: deviceID, token: Harness.apnsToken(311))
            #expect(registered4.status == .ok)
            let records = try h.node.store.view.allRecords()
            #expect(records.count == 1)
            let key = try #require(records.keys.first)
            #expect(!String(decoding: key.storeKeyBytes, as: UTF8.self).contains(deviceID))
            #expect(key == SilentRegistrations.key(service: "default", deviceID: deviceID))
        }
    }

    // MARK: Limits

    @Test func aDeviceGetsAtMostTheHourlyLimit() async throws {
        try await Self.with { h in
            let registered5 = try await Self.register(h, deviceID: "busy", token: Harness.apnsToken(320))
            #expect(registered5.status == .ok)
            var delivered = 0
            var throttled = 0
            for _ in 0..<5 {
                let counts = try await Self.sync(h, ["busy"])
                delivered += counts["delivered"] ?? 0
                throttled += counts["throttled"] ?? 0
            }
            #expect(delivered == 3)
            #expect(throttled == 2)
            #expect(h.production.accepted.count == 3)
            let metrics = String(buffer: try await h.client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains(#"herald_silent_pushes_total{service="default",outcome="throttled"} 2"#))
        }
    }

    @Test func aPushForADeviceWithOnePendingIsCoalesced() async throws {
        let clock = TestClock()
        try await Self.with(extraYAML: "  rate-limit: 0\n", clock: clock) { h in
            let registered6 = try await Self.register(h, deviceID: "slow", token: Harness.apnsToken(321))
            #expect(registered6.status == .ok)
            // The first push is refused once and waits for its retry on the node's clock, which
            // moves only once the second is answered: it is pending however long that takes.
            h.production.failNext(1, status: 503, reason: "ServiceUnavailable")
            async let first = Self.sync(h, ["slow"])
            try await clock.waitForSleepers(1)
            let second = try await Self.sync(h, ["slow"])
            try await clock.advancing(until: "the first push is delivered after its retry (accepted)", observing: { h.production.accepted.count }) { $0 > 0 }
            let firstCounts = try await first
            #expect(second["coalesced"] == 1)
            #expect(firstCounts["delivered"] == 1)
            #expect(h.production.accepted.count == 1)
        }
    }

    @Test func deadTokensDisableTheirRegistration() async throws {
        try await Self.with { h in
            let token = Harness.apnsToken(322)
            h.production.script(token: token, .unregistered(since: Date()))
            let registered7 = try await Self.register(h, deviceID: "gone", token: token)
            #expect(registered7.status == .ok)
            let first = try await Self.sync(h, ["gone"])
            #expect(first["dead_token"] == 1)
            let second = try await Self.sync(h, ["gone"])
            #expect(second["unregistered"] == 1, "disabled")
        }
    }

    // MARK: Broadcasts

    @Test func broadcastReachesEveryLiveRegistrationOnceAndPrunesDeadTokens() async throws {
        try await Self.with(extraYAML: "  rate-limit: 0\n") { h in
            var live: Set<String> = []
            for index in 0..<60 {
                let token = index % 3 == 2 ? Harness.fcmToken(400 + index) : Harness.apnsToken(400 + index)
                let type = index % 3 == 2 ? "AND" : "IOS"
                let registered8 = try await Self.register(h, deviceID: "device-\(index)", type: type, token: token)
                #expect(registered8.status == .ok)
                live.insert(token)
            }
            // Ten unregister again, five have dead tokens.
            for index in 0..<10 {
                let registered9 = try await Self.register(h, deviceID: "device-\(index)", token: "")
                #expect(registered9.status == .ok)
                live.remove(index % 3 == 2 ? Harness.fcmToken(400 + index) : Harness.apnsToken(400 + index))
            }
            // Live APNs registrations (every third one is on FCM).
            let dead = [10, 12, 13].map { Harness.apnsToken(400 + $0) }
            for token in dead { h.production.script(token: token, .unregistered(since: Date())) }
            let started = try await h.client.execute(
                uri: "/silent/v1/broadcasts",
                method: .post,
                headers: [.contentType: "application/json", .authorization: "Bearer \(Harness.apiToken)"],
                body: ByteBuffer(string: #"{"service":"default"}"#)
            )
            #expect(started.status == .accepted)
            let location = try #require(started.headers[.location])
            let state = try await waitUntil("the broadcast is done (its state)", observing: { try await Self.broadcast(h, at: location) }) {
                $0["status"] as? String == "done"
            }
            #expect(state["visited"] as? Int == 50)
            #expect(state["dead_tokens"] as? Int == 3)
            let reached = h.production.accepted.map(\.token) + h.fcm.accepted.compactMap { message -> String? in
                if case .token(let token) = message.target { return token }
                return nil
            }
            #expect(reached.count == Set(reached).count, "once each")
            #expect(Set(reached) == live.subtracting(dead), "exactly the live registrations")
            // The dead ones were disabled on the way: a second broadcast skips them.
            let enabled = try h.node.store.view.allRecords().values.compactMap(\.registration).filter(\.enabled)
            #expect(enabled.count == 47)
        }
    }

    @Test func aCancelledBroadcastStaysCancelled() async throws {
        // The broadcast is paced on the node's clock, which moves only when the test moves it:
        // one push a step, so how many went out before the cancellation is the test's choice, not
        // this machine's speed, and nothing is in flight when it comes.
        let clock = TestClock()
        try await Self.with(extraYAML: "  rate-limit: 0\n  broadcast-rate: 20\n", clock: clock) { h in
            let devices = 10
            for index in 0..<devices {
                let registered = try await Self.register(h, deviceID: "cancel-\(index)", token: Harness.apnsToken(700 + index))
                #expect(registered.status == .ok)
            }
            let auth: HTTPFields = [.contentType: "application/json", .authorization: "Bearer \(Harness.apiToken)"]
            let typo = try await h.client.execute(uri: "/silent/v1/broadcasts", method: .post, headers: auth, body: ByteBuffer(string: #"{"servce":"default"}"#))
            #expect(typo.status == .badRequest, "a typo must not wake every device")
            let started = try await h.client.execute(uri: "/silent/v1/broadcasts", method: .post, headers: auth, body: ByteBuffer())
            let location = try #require(started.headers[.location])
            // At 20 a second the first push goes at once and each next one 50 ms of the clock
            // later; once a push is answered the walk sleeps until the next is due.
            let sent = 3
            for pushed in 1...sent {
                try await waitUntil(
                    "push \(pushed) of the broadcast answered and the walk waiting for the next (accepted, sleeping)",
                    observing: { () -> (accepted: Int, sleeping: Int) in (h.production.accepted.count, clock.sleepers) }
                ) { $0.accepted == pushed && $0.sleeping == 1 }
                if pushed < sent, let next = clock.nextDeadline { clock.advance(to: next) }
            }
            let cancelled = try await h.client.execute(uri: location, method: .delete, headers: auth)
            #expect(cancelled.status == .ok)
            #expect(h.production.accepted.count == sent)
            // The cancellation ended the walk: nothing waits on the clock to send the rest.
            #expect(clock.sleepers == 0)
            #expect(try await Self.broadcast(h, at: location)["status"] as? String == "cancelled")

            let door = try #require(h.node.frontDoor(SilentFrontDoor.self))
            try await door.sync.broadcasts.resume()
            // A second broadcast, walked to its end: a walk the resume had started again would
            // have started before it, at the same pace, and sent beside it.
            let marker = try await h.client.execute(uri: "/silent/v1/broadcasts", method: .post, headers: auth, body: ByteBuffer())
            let markerLocation = try #require(marker.headers[.location])
            let done = try await clock.advancing(until: "the second broadcast is done (its state)", observing: { try await Self.broadcast(h, at: markerLocation) }) {
                $0["status"] as? String == "done"
            }
            #expect(done["visited"] as? Int == devices)
            #expect(h.production.accepted.count == sent + devices, "a cancelled broadcast is not resumed")
            #expect(try await Self.broadcast(h, at: location)["status"] as? String == "cancelled", "and still says so")
        }
    }

    // MARK: Helpers

    func runClient(_ steps: [[String: String]], directory: String) async throws -> [[String: Any]] {
        let input = directory + "/notifyme-in.json"
        let output = directory + "/notifyme-out.json"
        try JSONSerialization.data(withJSONObject: steps).write(to: URL(fileURLWithPath: input))
        let process = try ChildProcess(executable: "/usr/bin/env", arguments: ["python3", Self.script, Self.protoDirectory, input, output])
        let exit = try await process.waitForExit(timeout: TestTime.bound(.seconds(120)))
        #expect(exit.status == 0 && !exit.timedOut, "notifyme_client.py: \(process.output)")
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output))) as? [[String: Any]])
    }
}

/// A broadcast stopped by a shutdown resumes from its last cursor at the next start.
@Suite struct SilentBroadcastResumeTests {
    typealias Harness = PushNodeHarness

    @Test func aStoppedBroadcastResumesWhereItsLastBatchEnded() async throws {
        // Paced on the node's clock, which moves only when the test moves it: the walk is
        // stopped where the test chose, however slow this machine is.
        let clock = TestClock()
        try await SilentEndToEndTests.with(extraYAML: "  rate-limit: 0\n  broadcast-rate: 10\n", clock: clock) { h in
            let tokens = (0..<60).map { Harness.apnsToken(500 + $0) }
            for (index, token) in tokens.enumerated() {
                let registered = try await SilentEndToEndTests.register(h, deviceID: "resume-\(index)", token: token)
                #expect(registered.status == .ok)
            }
            let door = try #require(h.node.frontDoor(SilentFrontDoor.self))
            let first = door.sync.broadcasts
            let id = try await first.start(service: "default").id
            // Progress is recorded every quarter second of the clock.
            try await clock.advancing(until: "the broadcast records 8 registrations visited (visited)", observing: { await first.broadcast(id: id)?.visited ?? 0 }) {
                $0 >= 8
            }
            // As at shutdown: the walk stops, the broadcast stays running in LMDB.
            await first.stop()
            let stopped = try #require(await first.broadcast(id: id))
            #expect(stopped.status == .running)
            #expect((8..<60).contains(stopped.visited))

            let second = SilentBroadcasts(
                view: first.view,
                markers: first.markers,
                sender: first.sender,
                metrics: first.metrics,
                rate: 10,
                clock: clock,
                wallClock: { Date() },
                logger: first.logger
            )
            try await second.resume()
            let resumed = try await clock.advancing(until: "the resumed broadcast is done (its state)", observing: { await second.broadcast(id: id) }) {
                $0?.status == .done
            }
            let done = try #require(resumed)
            #expect(done.status == .done)
            #expect(done.visited == 60, "no registration walked twice in the count")
            let reached = h.production.accepted.map(\.token)
            #expect(Set(reached) == Set(tokens), "every device reached")
            // Again only what was in flight or answered since the last progress write: each device
            // at most twice, and far fewer than a second walk.
            let counts = Dictionary(grouping: reached, by: { $0 }).mapValues(\.count)
            #expect(counts.values.allSatisfy { $0 <= 2 })
            #expect(reached.count < 60 + 40, "fewer repeats than a second full walk")
        }
    }
}
