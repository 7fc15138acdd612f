import Foundation
import HeraldBench
import HeraldTestTraits
import HeraldTesting
import Hummingbird
import NIOPosix
import Synchronization
import Testing

/// The load generator against a small stand-in for `/api/push` on 127.0.0.1 that answers as
/// gorush's sync mode does and fails every fifth request.
@Suite(.loadHeavy) struct LoadGeneratorTests {
    final class Served: Sendable {
        let count = Mutex(0)
        var value: Int { self.count.withLock { $0 } }
    }

    func withServer(_ body: @escaping @Sendable (String, Served) async throws -> Void) async throws {
        let served = Served()
        let router = Router()
        router.post("/api/push") { request, _ -> Response in
            _ = try await request.body.collect(upTo: 1 << 20)
            let count = served.count.withLock { value in
                value += 1
                return value
            }
            let logs = count % 5 == 0 ? #"[{"type":"failed-push","error":"BadDeviceToken"}]"# : "[]"
            return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"counts":1,"logs":\#(logs),"success":"ok"}"#)))
        }
        let server = try await LoopbackServer.start(router)
        do {
            try await body("http://127.0.0.1:\(server.port)", served)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Runs `generator` again (bounded) until a run was served: a busy machine may answer nothing
    /// in a short run, which is not what these tests are about. Only runs that served nothing
    /// come before the one returned, so the server's count is that run's.
    static func runUntilServed(_ generator: LoadGenerator, _ scenario: GorushPushScenario, _ served: Served) async throws -> LoadResult {
        var result = try await generator.run(scenario)
        for _ in 0..<5 where served.value == 0 {
            result = try await generator.run(scenario)
        }
        try #require(served.value > 0, "no run of the generator was served")
        return result
    }

    @Test func closedLoopCountsEverySuccessAndFailure() async throws {
        try await withServer { url, served in
            let scenario = GorushPushScenario(devices: 100, tokensPerRequest: 2, payloadSize: 64, platform: .ios)
            let generator = LoadGenerator(baseURL: url, mode: .closed, duration: .milliseconds(800), concurrency: 4)
            let result = try await Self.runUntilServed(generator, scenario, served)
            let total = served.value
            #expect(result.requests == total)
            #expect(result.succeeded + (result.errors["push_failed"] ?? 0) == total)
            #expect((result.errors["push_failed"] ?? 0) == total / 5)
            #expect(result.notificationsPerSecond == result.requestsPerSecond * 2)
            let latency = result.latencyMilliseconds
            #expect(latency.p50 <= latency.p99 && latency.p99 <= latency.max && latency.max > 0)
        }
    }

    @Test func openLoopOffersTheRateItWasGiven() async throws {
        try await withServer { url, served in
            let scenario = GorushPushScenario(devices: 10, tokensPerRequest: 1, payloadSize: 64, platform: .android)
            let result = try await LoadGenerator(baseURL: url, mode: .open(rate: 200), duration: .seconds(1), concurrency: 64).run(scenario)
            // Every arrival is either sent or, on a machine too busy to keep 64 in flight, counted.
            #expect(result.requests == 200)
            #expect(served.value + (result.errors["client_saturated"] ?? 0) == 200)
            #expect(served.value > 0)
            #expect(result.offeredRate == 200)
            #expect(result.mode == "open")
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrderAndCounted() async throws {
        try await withServer { url, served in
            let scenario = GorushPushScenario(devices: 100, tokensPerRequest: 1, payloadSize: 64, platform: .ios)
            var generator = LoadGenerator(baseURL: url, mode: .closed, duration: .milliseconds(600), concurrency: 8)
            generator.pipelining = 4
            let result = try await Self.runUntilServed(generator, scenario, served)
            let total = served.value
            #expect(result.requests == total)
            #expect(result.succeeded + (result.errors["push_failed"] ?? 0) == total)
            #expect(result.errors["transport"] == nil)
        }
    }

    /// A server that closes each connection after its answer: the one connection of the run is
    /// reopened for each request, and every request is answered.
    @Test func aClosedConnectionIsReopened() async throws {
        // Event loops of its own, server and generator: on the shared loops a request of this
        // test could wait seconds behind the rest of the suite, and the run would end first.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let served = Served()
        let router = Router()
        router.post("/base/api/push") { request, _ -> Response in
            _ = try await request.body.collect(upTo: 1 << 20)
            served.count.withLock { $0 += 1 }
            return Response(status: .ok, headers: [.connection: "close"], body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"counts":1,"logs":[],"success":"ok"}"#)))
        }
        let server = try await LoopbackServer.start(router, eventLoopGroup: group)
        let scenario = GorushPushScenario(devices: 10, tokensPerRequest: 1, payloadSize: 64, platform: .ios)
        var generator = LoadGenerator(baseURL: "http://127.0.0.1:\(server.port)/base/", mode: .closed, duration: .seconds(2), concurrency: 1)
        generator.group = group
        // Runs again (bounded) until one run was served twice: with the whole suite starting on
        // two cores, the handler's task can wait seconds for a thread. Each run opens its own
        // connection, so only two requests within one run show a reopened connection.
        var runs: [(served: Int, result: LoadResult)] = []
        for _ in 0..<5 where (runs.last?.served ?? 0) < 2 {
            let before = served.value
            let result = try await generator.run(scenario)
            runs.append((served.value - before, result))
        }
        await server.stop()
        try await group.shutdownGracefully()
        let last = try #require(runs.last)
        #expect(last.served >= 2, "the one connection was reopened")
        #expect(last.result.succeeded == last.served)
        #expect(runs.allSatisfy { $0.result.errors.isEmpty }, "\(runs.map(\.result.errors))")
    }

    @Test func requestsAreTheSameForTheSameIndex() {
        let scenario = GorushPushScenario(devices: 3, tokensPerRequest: 2, payloadSize: 200, platform: .ios)
        #expect(scenario.request(5).body == scenario.request(5).body)
        let text = String(decoding: scenario.request(1).body, as: UTF8.self)
        // Index 1 with two tokens per request takes devices 2 and 0 (round robin over 3).
        #expect(text.contains(#""tokens":["0000000000000000000000000000000000000000000000000000000000000002","0000000000000000000000000000000000000000000000000000000000000000"]"#))
        #expect(scenario.errorKind(status: 429, body: []) == "http_429")
        #expect(scenario.errorKind(status: 200, body: Array(#"{"counts":1,"logs":[],"success":"ok"}"#.utf8)) == nil)
    }
}
