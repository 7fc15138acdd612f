import AsyncHTTPClient
import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// Sends a scenario's requests to a Herald URL and measures them.
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

    public init(baseURL: String, mode: Mode, duration: Duration, concurrency: Int, bearerToken: String? = nil) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.mode = mode
        self.duration = duration
        self.concurrency = max(concurrency, 1)
        self.bearerToken = bearerToken
    }

    public func run(_ scenario: some LoadScenario) async throws -> LoadResult {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: self.concurrency)
        configuration.httpVersion = .http1Only
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        let startedAt = Date()
        let start = ContinuousClock.now
        let recorder = LoadRecorder(start: start)
        do {
            switch self.mode {
            case .closed:
                try await self.closedLoop(scenario, client: client, recorder: recorder)
            case .open(let rate):
                try await self.openLoop(scenario, rate: rate, client: client, recorder: recorder)
            }
        } catch {
            try? await client.shutdown()
            throw error
        }
        let elapsed = ContinuousClock.now - start
        try await client.shutdown()

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

    private func closedLoop(_ scenario: some LoadScenario, client: HTTPClient, recorder: LoadRecorder) async throws {
        let end = ContinuousClock.now + self.duration
        try await withThrowingDiscardingTaskGroup { group in
            for _ in 0..<self.concurrency {
                group.addTask {
                    // At least one request each: on a loaded machine a worker may start after
                    // `end`, and a run that measured nothing would report nothing.
                    repeat {
                        let index = recorder.sent.add(1, ordering: .relaxed).newValue - 1
                        let began = ContinuousClock.now
                        let error = await self.send(scenario.request(index), scenario: scenario, client: client)
                        let now = ContinuousClock.now
                        recorder.record(latency: now - began, error: error, at: now)
                    } while ContinuousClock.now < end
                }
            }
        }
    }

    private func openLoop(_ scenario: some LoadScenario, rate: Double, client: HTTPClient, recorder: LoadRecorder) async throws {
        let start = recorder.start
        let interval = 1 / max(rate, 0.001)
        let total = Int(rate * (Double(self.duration.components.seconds) + Double(self.duration.components.attoseconds) / 1e18))
        try await withThrowingDiscardingTaskGroup { group in
            var index = 0
            while index < total {
                // Launch every request whose arrival time has come, then sleep a little: one
                // timer per request would cost more than the requests at high rates.
                let now = ContinuousClock.now
                while index < total {
                    let intended = start + .seconds(Double(index) * interval)
                    guard intended <= now else { break }
                    let current = index
                    index += 1
                    recorder.sent.add(1, ordering: .relaxed)
                    guard recorder.inFlight.add(1, ordering: .relaxed).newValue <= self.concurrency else {
                        recorder.inFlight.subtract(1, ordering: .relaxed)
                        recorder.record(latency: .zero, error: "client_saturated", at: now)
                        continue
                    }
                    group.addTask {
                        let error = await self.send(scenario.request(current), scenario: scenario, client: client)
                        recorder.inFlight.subtract(1, ordering: .relaxed)
                        let done = ContinuousClock.now
                        recorder.record(latency: done - intended, error: error, at: done)
                    }
                }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    /// Sends one request; returns its error kind, `nil` on success.
    private func send(_ load: LoadRequest, scenario: some LoadScenario, client: HTTPClient) async -> String? {
        var request = HTTPClientRequest(url: self.baseURL + load.path)
        request.method = .POST
        request.headers.add(name: "content-type", value: load.contentType)
        for (name, value) in load.headers { request.headers.add(name: name, value: value) }
        if let token = self.bearerToken { request.headers.add(name: "authorization", value: "Bearer " + token) }
        request.body = .bytes(ByteBuffer(bytes: load.body))
        do {
            let timeout = TimeAmount.nanoseconds(Int64(self.requestTimeout.components.seconds) * 1_000_000_000)
            let response = try await client.execute(request, timeout: timeout)
            let body = try await response.body.collect(upTo: 16 << 20)
            return scenario.errorKind(status: Int(response.status.code), body: Array(buffer: body))
        } catch let error as HTTPClientError {
            return error == .deadlineExceeded ? "timeout" : "transport"
        } catch {
            return "transport"
        }
    }
}
