import AsyncHTTPClient
import HeraldTesting
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization
import Testing
import HeraldDelivery
@testable import HeraldServer

/// A connection's work runs on its channel's event loop, and stays there across the awaits of
/// a handler, without the global executor in between.
@Suite struct EventLoopTaskExecutorTests {
    /// Nonisolated and async: calling it is where a serial executor would have to be left.
    nonisolated static func elsewhere() async -> Bool {
        MultiThreadedEventLoopGroup.currentEventLoop != nil
    }

    @Test func aPreferringTaskRunsOnItsLoopAcrossAwaits() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loop = group.next()
        let seen = await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) { () async -> [Bool] in
            var seen = [loop.inEventLoop]
            seen.append(await Self.elsewhere() && loop.inEventLoop)
            // Resumed by a timer: the job comes back to the same loop.
            // Not a wait for a condition: the sleep is the timer under test; any length does.
            try? await Task.sleep(for: .milliseconds(5))
            seen.append(loop.inEventLoop)
            // Resumed from another loop's future.
            let other = group.any() === loop ? group.next() : group.any()
            _ = try? await other.submit { 1 }.get()
            seen.append(loop.inEventLoop)
            return seen
        }
        try await group.shutdownGracefully()
        #expect(seen == [true, true, true, true])
    }

    @Test func handlersOfHeraldsHTTPChannelRunOnTheirConnectionsLoop() async throws {
        let onLoop = Mutex<[Bool]>([])
        let router = Router()
        router.get("/where") { _, _ -> String in
            let before = MultiThreadedEventLoopGroup.currentEventLoop
            // Not a wait for a condition: a suspension the handler resumes from, of any length.
            try await Task.sleep(for: .milliseconds(1))
            let after = MultiThreadedEventLoopGroup.currentEventLoop
            onLoop.withLock { $0.append(before != nil && before === after) }
            return "here"
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router,
            // Both only bound a hang here.
            server: .heraldHTTP1(idleTimeout: TestTime.bound(.seconds(30)), requestTimeout: TestTime.bound(.seconds(30))),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }
        )
        let services = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [], logger: Logger(label: "test")))
        let serving = Task { try await services.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        for _ in 0..<3 {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/where"), timeout: .seconds(Int64((TestTime.bound(.seconds(30)) / .seconds(1)).rounded(.up))))
            #expect(response.status == .ok)
            _ = try await response.body.collect(upTo: 1024)
        }
        await services.triggerGracefulShutdown()
        try await serving.value
        #expect(onLoop.withLock { $0 } == [true, true, true])
    }
}
