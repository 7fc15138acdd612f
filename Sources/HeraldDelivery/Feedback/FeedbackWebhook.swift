import AsyncHTTPClient
public import CoreMetrics
import HeraldCore
public import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// Posts every failed push to an operator's URL as JSON, one event per request, retried with
/// back-off. The queue is bounded: when the receiver cannot keep up, new events are counted and
/// logged as dropped rather than held without limit, and pushes are never slowed by it.
public final class FeedbackWebhook: FailureObserver {
    public struct Configuration: Sendable, Hashable {
        public var url: String
        /// Sent as `Authorization: Bearer …` when set.
        public var bearerToken: String?
        public var requestTimeout: Duration = .seconds(10)
        public var maximumAttempts: Int = 5
        public var queueLimit: Int = 10_000
        /// Requests in flight at once.
        public var concurrency: Int = 4
        public var backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(30))

        public init(url: String, bearerToken: String? = nil) {
            self.url = url
            self.bearerToken = bearerToken
        }
    }

    public static let eventsMetric = "herald_feedback_events_total"

    public let configuration: Configuration
    private let client: HTTPClient
    private let logger: Logger
    private let clock: any Clock<Duration>
    private let stream: AsyncStream<FeedbackEvent>
    private let continuation: AsyncStream<FeedbackEvent>.Continuation
    private let posted: Counter
    private let dropped: Counter
    private let abandoned: Counter
    /// Attempts that failed because the node had no file descriptor left.
    private let outOfFiles: Counter
    private let dropping = Atomic<Bool>(false)

    /// `clock` times the back-off between attempts (a test clock in tests).
    public init(configuration: Configuration, metrics: any MetricsFactory, logger: Logger, clock: any Clock<Duration> = ContinuousClock()) {
        self.clock = clock
        self.configuration = configuration
        // The process-wide client needs no shutdown, so a node that fails to start after
        // building its webhook leaves nothing behind.
        self.client = HTTPClient.shared
        self.logger = logger
        (self.stream, self.continuation) = AsyncStream.makeStream(of: FeedbackEvent.self, bufferingPolicy: .bufferingOldest(configuration.queueLimit))
        self.posted = Counter(label: Self.eventsMetric, dimensions: [("result", "posted")], factory: metrics)
        self.dropped = Counter(label: Self.eventsMetric, dimensions: [("result", "dropped")], factory: metrics)
        self.abandoned = Counter(label: Self.eventsMetric, dimensions: [("result", "abandoned")], factory: metrics)
        self.outOfFiles = Counter(label: "herald_feedback_attempts_out_of_files_total", factory: metrics)
    }

    /// Queues `event`; never waits.
    public func pushFailed(_ event: FeedbackEvent) {
        if case .dropped = self.continuation.yield(event) {
            self.dropped.increment()
            // One line per outage, not per event: the counter has the numbers.
            if !self.dropping.exchange(true, ordering: .relaxed) {
                self.logger.warning("feedback queue full: events are dropped until it drains", metadata: ["queue.limit": "\(self.configuration.queueLimit)"])
            }
        }
    }

    /// Posts queued events until `finish()`, then posts what is still queued and returns.
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            for await event in self.stream {
                if running >= self.configuration.concurrency {
                    await group.next()
                    running -= 1
                }
                group.addTask { await self.post(event) }
                running += 1
            }
        }
    }

    /// Stops accepting events; `run()` returns once the queue is empty.
    public func finish() {
        self.continuation.finish()
    }

    private func post(_ event: FeedbackEvent) async {
        var request = HTTPClientRequest(url: self.configuration.url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: "herald-feedback")
        if let token = self.configuration.bearerToken {
            request.headers.add(name: "authorization", value: "Bearer " + token)
        }
        request.body = .bytes(ByteBuffer(bytes: event.json.bytes))
        let timeout = TimeAmount(self.configuration.requestTimeout)
        var random = SystemRandomNumberGenerator()
        var lastProblem = ""
        for attempt in 1...max(self.configuration.maximumAttempts, 1) {
            do {
                let response = try await self.client.execute(request, timeout: timeout)
                _ = try? await response.body.collect(upTo: 64 * 1024)
                let status = Int(response.status.code)
                if (200..<300).contains(status) {
                    self.posted.increment()
                    self.dropping.store(false, ordering: .relaxed)
                    return
                }
                lastProblem = "HTTP \(status)"
                // The receiver refuses the event itself; sending it again cannot help.
                if (400..<500).contains(status), status != 408, status != 429 { break }
            } catch {
                lastProblem = "\(error)"
                if ResourceExhaustion.isOutOfFileDescriptors(error) { self.outOfFiles.increment() }
            }
            guard attempt < self.configuration.maximumAttempts else { break }
            do {
                try await self.clock.sleep(for: self.configuration.backoff.delay(afterAttempt: attempt, using: &random), tolerance: nil)
            } catch {
                break
            }
        }
        self.abandoned.increment()
        self.logger.error(
            "feedback webhook gave up on an event",
            metadata: ["push.id": "\(event.id)", "feedback.url": "\(URLRedaction.redact(self.configuration.url))", "error": "\(lastProblem)"]
        )
    }
}
