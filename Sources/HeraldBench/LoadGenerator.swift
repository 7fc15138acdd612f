import Foundation
import Histogram
public import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// Sends a scenario's requests to a Herald URL and measures them, over its own lean HTTP/1.1
/// connections (`LoadConnectionHandler`): AsyncHTTPClient cost seven times h2load's CPU per
/// request, so one machine could not load a deployment.
///
/// Open loop sends at a constant arrival rate whatever the server does, and measures each
/// latency from the request's intended send time, so queueing in a slow server shows up in the
/// percentiles instead of slowing the generator down (coordinated omission). Closed loop keeps
/// `concurrency` requests in flight and finds the most the server completes.
public struct LoadGenerator: Sendable {
    public enum Mode: Sendable, Hashable {
        case open(rate: Double)
        case closed
    }

    public var baseURL: String
    public var mode: Mode
    public var duration: Duration
    /// Closed loop: requests in flight. Open loop: the most in flight before new arrivals are
    /// counted as `client_saturated` instead of sent.
    public var concurrency: Int
    public var bearerToken: String?
    public var requestTimeout: Duration = .seconds(30)
    /// Requests in flight on one keep-alive connection (HTTP/1.1 pipelining above 1);
    /// `concurrency` of them make `concurrency / pipelining` connections.
    public var pipelining: Int = 1
    /// The event loops the connections run on.
    public var group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton

    public init(baseURL: String, mode: Mode, duration: Duration, concurrency: Int, bearerToken: String? = nil) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.mode = mode
        self.duration = duration
        self.concurrency = max(concurrency, 1)
        self.bearerToken = bearerToken
    }

    public func run<Scenario: LoadScenario>(_ scenario: Scenario) async throws -> LoadResult {
        let target = try LoadTarget(url: self.baseURL)
        let sslContext = try target.tls ? NIOSSLContext(configuration: .makeClientConfiguration()) : nil
        let depth = min(max(self.pipelining, 1), self.concurrency)
        let connections = (self.concurrency + depth - 1) / depth
        let startedAt = Date()
        let start = ContinuousClock.now
        let recorder = LoadRecorder(start: start)
        let schedule: LoadPlan<Scenario>.Schedule
        switch self.mode {
        case .closed:
            schedule = .closed(end: start + self.duration)
        case .open(let rate):
            let seconds = Double(self.duration.components.seconds) + Double(self.duration.components.attoseconds) / 1e18
            schedule = .open(interval: .seconds(1 / max(rate, 0.001)), total: Int(rate * seconds), connections: connections, outstanding: self.concurrency)
        }
        let plan = LoadPlan(
            scenario: scenario,
            schedule: schedule,
            recorder: recorder,
            target: target,
            bearerToken: self.bearerToken,
            requestTimeout: self.requestTimeout,
            depth: depth
        )
        // A connection that cannot be reopened gives up once the run and a request timeout are over.
        let giveUpAt = start + self.duration + self.requestTimeout
        await withDiscardingTaskGroup { group in
            let loops = self.group
            for connection in 0..<connections {
                let loop = loops.next()
                let state = NIOLoopBoundBox.makeBoxSendingValue(LoadConnectionState(plan: plan, connection: connection), eventLoop: loop)
                group.addTask {
                    await Self.drive(state, on: loop, target: target, sslContext: sslContext, recorder: recorder, giveUpAt: giveUpAt)
                }
            }
        }
        let elapsed = ContinuousClock.now - start

        let (histogram, succeeded, errors, perSecond) = recorder.snapshot()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        func ms(_ micros: UInt64) -> Double { Double(micros) / 1000 }
        var offered: Double?
        if case .open(let rate) = self.mode { offered = rate }
        return LoadResult(
            scenario: scenario.name,
            mode: offered == nil ? "closed" : "open",
            url: self.baseURL,
            offeredRate: offered,
            concurrency: self.concurrency,
            durationSeconds: seconds,
            requests: recorder.sent.load(ordering: .relaxed),
            succeeded: succeeded,
            errors: errors,
            notificationsPerRequest: scenario.notificationsPerRequest,
            requestsPerSecond: Double(succeeded) / seconds,
            notificationsPerSecond: Double(succeeded * scenario.notificationsPerRequest) / seconds,
            latencyMilliseconds: .init(
                p50: ms(histogram.valueAtPercentile(50)),
                p90: ms(histogram.valueAtPercentile(90)),
                p99: ms(histogram.valueAtPercentile(99)),
                p999: ms(histogram.valueAtPercentile(99.9)),
                max: ms(histogram.max),
                mean: histogram.totalCount == 0 ? 0 : histogram.mean / 1000
            ),
            completedPerSecond: perSecond,
            startedAt: startedAt
        )
    }

    /// Keeps one connection of the run open, reopening it after a failure, until its share of
    /// the run is done.
    private static func drive<Scenario: LoadScenario>(
        _ state: NIOLoopBoundBox<LoadConnectionState<Scenario>>,
        on loop: any EventLoop,
        target: LoadTarget,
        sslContext: NIOSSLContext?,
        recorder: LoadRecorder,
        giveUpAt: ContinuousClock.Instant
    ) async {
        while ContinuousClock.now < giveUpAt {
            do {
                let channel = try await ClientBootstrap(group: loop)
                    .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                    .connectTimeout(.seconds(10))
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            let sync = channel.pipeline.syncOperations
                            if let sslContext {
                                try sync.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: target.serverName))
                            }
                            try sync.addHTTPClientHandlers()
                            try sync.addHandler(LoadConnectionHandler(state: state.value))
                        }
                    }
                    .connect(host: target.host, port: target.port)
                    .get()
                try await channel.closeFuture.get()
            } catch {
                recorder.count(error: "connect_failed")
                try? await Task.sleep(for: .milliseconds(100))
            }
            let reopen = (try? await loop.submit { state.value.needsConnection }.get()) ?? false
            if !reopen { return }
        }
        try? await loop.submit { state.value.abandon() }.get()
    }
}
