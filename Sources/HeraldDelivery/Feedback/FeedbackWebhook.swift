import AsyncHTTPClient
public import CoreMetrics
public import HeraldCore
public import Logging
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// Posts every failed push to an operator's URL as JSON, one event per request, retried with
/// back-off. The queue is bounded: when the receiver cannot keep up, new events are counted and
/// logged as dropped rather than held without limit, and pushes are never slowed by it.
///
/// With a journal, each event is written to it before it is queued and forgotten once posted or
/// given up on; `run()` first posts what an earlier process left.
public final class FeedbackWebhook: FailureObserver {
    /// The journal's name for the events it keeps.
    public static let journalOwner = "feedback"
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
        /// How long after the failure an event found by a restart is still posted.
        public var maximumAge: Duration = .seconds(86400)

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
    /// One event to post, and its journal entry.
    private struct Posting: Sendable {
        var id: UInt64?
        var pushID: String
        var body: [UInt8]
    }

    private let journal: (any AcceptedWorkJournal)?
    /// `configuration.url` without its user information, which goes in `authorization` instead.
    private let target: String
    private let authorization: String?
    private let stream: AsyncStream<Posting>
    private let continuation: AsyncStream<Posting>.Continuation
    private let posted: Counter
    private let dropped: Counter
    private let abandoned: Counter
    /// Attempts that failed because the node had no file descriptor left.
    private let outOfFiles: Counter
    private let dropping = Atomic<Bool>(false)

    /// `clock` times the back-off between attempts (a test clock in tests).
    public init(
        configuration: Configuration,
        metrics: any MetricsFactory,
        logger: Logger,
        clock: any Clock<Duration> = ContinuousClock(),
        journal: (any AcceptedWorkJournal)? = nil
    ) {
        self.clock = clock
        self.journal = journal
        (self.target, self.authorization) = Self.credentials(of: configuration)
        self.configuration = configuration
        // The process-wide client needs no shutdown, so a node that fails to start after
        // building its webhook leaves nothing behind.
        self.client = HTTPClient.shared
        self.logger = logger
        (self.stream, self.continuation) = AsyncStream.makeStream(of: Posting.self, bufferingPolicy: .bufferingOldest(configuration.queueLimit))
        self.posted = Counter(label: Self.eventsMetric, dimensions: [("result", "posted")], factory: metrics)
        self.dropped = Counter(label: Self.eventsMetric, dimensions: [("result", "dropped")], factory: metrics)
        self.abandoned = Counter(label: Self.eventsMetric, dimensions: [("result", "abandoned")], factory: metrics)
        self.outOfFiles = Counter(label: "herald_feedback_attempts_out_of_files_total", factory: metrics)
    }

    /// Queues `event`; never waits.
    public func pushFailed(_ event: FeedbackEvent) {
        let body = event.json.bytes
        guard let journal = self.journal else { return self.enqueue(Posting(id: nil, pushID: event.id, body: body)) }
        let now = Date()
        let work = AcceptedWork(
            owner: Self.journalOwner,
            acceptedAt: Int64(now.timeIntervalSince1970 * 1000),
            deadline: Int64(now.timeIntervalSince1970) + max(self.configuration.maximumAge.components.seconds, 1),
            item: .document(body)
        )
        journal.record([work]) { ids in
            // Not written: posted all the same, as without a journal.
            self.enqueue(Posting(id: ids?.first, pushID: event.id, body: body))
        }
    }

    private func enqueue(_ posting: Posting) {
        if case .dropped = self.continuation.yield(posting) {
            if let id = posting.id { self.journal?.finished([id]) }
            self.dropped.increment()
            // One line per outage, not per event: the counter has the numbers.
            if !self.dropping.exchange(true, ordering: .relaxed) {
                self.logger.warning("feedback queue full: events are dropped until it drains", metadata: ["queue.limit": "\(self.configuration.queueLimit)"])
            }
        }
    }

    /// Posts what an earlier process left, then queued events until `finish()`, then what is
    /// still queued, and returns.
    public func run() async {
        self.resume()
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            for await posting in self.stream {
                if running >= self.configuration.concurrency {
                    await group.next()
                    running -= 1
                }
                group.addTask {
                    await self.post(posting)
                    // Cancelled, the post may not have ended: the journal keeps it.
                    if let id = posting.id, !Task.isCancelled { self.journal?.finished([id]) }
                }
                running += 1
            }
        }
    }

    /// Stops accepting events; `run()` returns once the queue is empty.
    public func finish() {
        self.continuation.finish()
    }

    /// The URL to post to and the `authorization` to send: the bearer token when one is set, else
    /// Basic with the URL's own user and password (`https://user:pass@host/…`), which an HTTP
    /// client does not send by itself.
    static func credentials(of configuration: Configuration) -> (url: String, authorization: String?) {
        guard var components = URLComponents(string: configuration.url), let user = components.percentEncodedUser else {
            return (configuration.url, configuration.bearerToken.map { "Bearer " + $0 })
        }
        let password = components.percentEncodedPassword ?? ""
        components.percentEncodedUser = nil
        components.percentEncodedPassword = nil
        let url = components.string ?? configuration.url
        if let token = configuration.bearerToken { return (url, "Bearer " + token) }
        let decoded = (user.removingPercentEncoding ?? user) + ":" + (password.removingPercentEncoding ?? password)
        return (url, "Basic " + Data(decoded.utf8).base64EncodedString())
    }

    /// Queues the events an earlier process left; those past their deadline are given up on.
    private func resume() {
        guard let journal = self.journal, let found = try? journal.unfinished(owner: Self.journalOwner) else { return }
        let now = Int64(Date().timeIntervalSince1970)
        var stale: [UInt64] = []
        for entry in found {
            guard case .document(let body) = entry.work.item, entry.work.deadline >= now else {
                stale.append(entry.id)
                continue
            }
            // Past the queue's limit they stay in the journal for the next start.
            if case .dropped = self.continuation.yield(Posting(id: entry.id, pushID: Self.pushID(in: body), body: body)) { break }
        }
        self.abandoned.increment(by: stale.count)
        journal.finished(stale)
        if !found.isEmpty {
            self.logger.notice("resumed the feedback events an earlier run had not posted", metadata: ["events": "\(found.count - stale.count)", "expired": "\(stale.count)"])
        }
    }

    /// The push id a stored event names, for logs.
    private static func pushID(in body: [UInt8]) -> String {
        guard case .object(let fields)? = try? JSONValue(parsing: body), case .string(let id)? = fields.first(where: { $0.0 == "id" })?.1 else { return "?" }
        return id
    }

    private func post(_ event: Posting) async {
        var request = HTTPClientRequest(url: self.target)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: "herald-feedback")
        if let authorization = self.authorization {
            request.headers.add(name: "authorization", value: authorization)
        }
        request.body = .bytes(ByteBuffer(bytes: event.body))
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
            metadata: ["push.id": "\(event.pushID)", "feedback.url": "\(URLRedaction.redact(self.configuration.url))", "error": "\(lastProblem)"]
        )
    }
}
