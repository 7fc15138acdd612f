import NIOCore
import NIOHTTP1
import Synchronization

/// What every connection of one load run shares: the scenario, where results go, and when the
/// run ends (closed loop) or which arrivals it has (open loop).
struct LoadPlan<Scenario: LoadScenario>: Sendable {
    enum Schedule: Sendable {
        /// Keep `depth` requests in flight on each connection until `end`.
        case closed(end: ContinuousClock.Instant)
        /// Arrival `i` is due at `start + i × interval`; connection `c` of `connections` takes
        /// the arrivals `i ≡ c (mod connections)`. At most `outstanding` may be sent or waiting
        /// across the run; an arrival past that is `client_saturated`.
        case open(interval: Duration, total: Int, connections: Int, outstanding: Int)
    }

    var scenario: Scenario
    var schedule: Schedule
    var recorder: LoadRecorder
    var target: LoadTarget
    var bearerToken: String?
    var requestTimeout: Duration
    /// Requests in flight on one connection at once (HTTP/1.1 pipelining when above 1).
    var depth: Int
}

/// One connection's share of a run, on its event loop, kept across reconnects: its open-loop
/// arrivals and the requests sent and not yet answered.
final class LoadConnectionState<Scenario: LoadScenario> {
    struct Sent {
        /// When the request was due (open loop) or sent (closed loop): latency is measured from it.
        var intended: ContinuousClock.Instant
        var sentAt: ContinuousClock.Instant
        var counted: Bool
    }

    let plan: LoadPlan<Scenario>
    /// Open loop: this connection's next arrival index.
    var nextArrival: Int
    /// Open loop: arrivals due and waiting for the connection.
    var backlog = CircularBuffer<(index: Int, intended: ContinuousClock.Instant)>()
    var inFlight = CircularBuffer<Sent>()
    /// Nothing more to send or await: the worker stops reconnecting.
    var isFinished = false

    init(plan: LoadPlan<Scenario>, connection: Int) {
        self.plan = plan
        self.nextArrival = connection
    }

    /// The run is over and this connection could not be reopened: what it still had to send
    /// counts as failed, so that every arrival is accounted for.
    func abandon() {
        guard !self.isFinished else { return }
        self.isFinished = true
        let recorder = self.plan.recorder
        while self.backlog.popFirst() != nil {
            recorder.inFlight.subtract(1, ordering: .relaxed)
            recorder.count(error: "transport")
        }
        if case .open(_, let total, let connections, _) = self.plan.schedule {
            while self.nextArrival < total {
                self.nextArrival += connections
                recorder.sent.add(1, ordering: .relaxed)
                recorder.count(error: "transport")
            }
        }
    }

    /// Whether a closed connection is worth reopening: requests are left to send or to wait for.
    /// A connection opened for nothing would only race the server's shutdown.
    var needsConnection: Bool {
        guard !self.isFinished else { return false }
        switch self.plan.schedule {
        case .closed(let end): return ContinuousClock.now < end
        case .open(_, let total, _, _): return self.nextArrival < total || !self.backlog.isEmpty
        }
    }
}

/// Drives one keep-alive HTTP/1.1 connection from its event loop: sends the next request when
/// an answer comes in (closed loop) or when an arrival is due (a 1 ms tick, open loop), and
/// records each answer. No task and no future per request: the generator must cost less than
/// the server it measures (issue 17: at most 2× h2load's CPU per request).
final class LoadConnectionHandler<Scenario: LoadScenario>: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let state: LoadConnectionState<Scenario>
    private var status = 0
    private var body = ByteBuffer()
    private var tick: RepeatedTask?
    /// The server said it closes the connection after this answer: nothing more is sent on it.
    private var closing = false

    init(state: LoadConnectionState<Scenario>) {
        self.state = state
    }

    func channelActive(context: ChannelHandlerContext) {
        let period: TimeAmount
        if case .open = self.state.plan.schedule { period = .milliseconds(1) } else { period = .milliseconds(100) }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        self.tick = context.eventLoop.scheduleRepeatedTask(initialDelay: .zero, delay: period) { _ in
            let (handler, context) = loopBound.value
            handler.ticked(context: context)
        }
        self.pump(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.tick?.cancel()
        self.tick = nil
        // The answers these were waiting for will not come.
        let now = ContinuousClock.now
        while let sent = self.state.inFlight.popFirst() {
            self.record(sent, error: "transport", now: now)
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            self.status = Int(head.status.code)
            self.body.clear()
            if !head.isKeepAlive { self.closing = true }
        case .body(var part):
            if self.body.readableBytes < 16 << 20 { self.body.writeBuffer(&part) }
        case .end:
            guard let sent = self.state.inFlight.popFirst() else { return }
            let error = self.state.plan.scenario.errorKind(status: self.status, body: Array(self.body.readableBytesView))
            self.record(sent, error: error, now: ContinuousClock.now)
            if self.closing {
                context.close(promise: nil)
            } else {
                self.pump(context: context)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.closing = true
        context.close(promise: nil)
    }

    private func record(_ sent: LoadConnectionState<Scenario>.Sent, error: String?, now: ContinuousClock.Instant) {
        self.state.plan.recorder.record(latency: now - sent.intended, error: error, at: now)
        if sent.counted { self.state.plan.recorder.inFlight.subtract(1, ordering: .relaxed) }
    }

    /// Open loop: queues the arrivals now due. Both loops: times out a stalled connection.
    private func ticked(context: ChannelHandlerContext) {
        let now = ContinuousClock.now
        if let oldest = self.state.inFlight.first, now - oldest.sentAt > self.state.plan.requestTimeout {
            while let sent = self.state.inFlight.popFirst() { self.record(sent, error: "timeout", now: now) }
            self.closing = true
            context.close(promise: nil)
            return
        }
        self.pump(context: context)
    }

    /// Sends what the schedule allows now, and closes once this connection's share is done.
    private func pump(context: ChannelHandlerContext) {
        guard !self.closing else { return }
        let plan = self.state.plan
        let now = ContinuousClock.now
        var wrote = false
        switch plan.schedule {
        case .closed(let end):
            // At least one request each: on a loaded machine a connection may open after `end`,
            // and a run that measured nothing would report nothing.
            while self.state.inFlight.count < plan.depth, now < end || plan.recorder.sent.load(ordering: .relaxed) == 0 {
                let index = plan.recorder.sent.add(1, ordering: .relaxed).newValue - 1
                self.send(index, intended: now, counted: false, context: context)
                wrote = true
            }
            if now >= end, self.state.inFlight.isEmpty { self.finish(context: context) }
        case .open(let interval, let total, let connections, let outstanding):
            let start = plan.recorder.start
            while self.state.nextArrival < total {
                let intended = start + interval * self.state.nextArrival
                guard intended <= now else { break }
                let index = self.state.nextArrival
                self.state.nextArrival += connections
                plan.recorder.sent.add(1, ordering: .relaxed)
                guard plan.recorder.inFlight.add(1, ordering: .relaxed).newValue <= outstanding else {
                    plan.recorder.inFlight.subtract(1, ordering: .relaxed)
                    plan.recorder.record(latency: .zero, error: "client_saturated", at: now)
                    continue
                }
                self.state.backlog.append((index, intended))
            }
            while self.state.inFlight.count < plan.depth, let due = self.state.backlog.popFirst() {
                self.send(due.index, intended: due.intended, counted: true, context: context)
                wrote = true
            }
            if self.state.nextArrival >= total, self.state.backlog.isEmpty, self.state.inFlight.isEmpty { self.finish(context: context) }
        }
        if wrote { context.flush() }
    }

    private func send(_ index: Int, intended: ContinuousClock.Instant, counted: Bool, context: ChannelHandlerContext) {
        let plan = self.state.plan
        let load = plan.scenario.request(index)
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: plan.target.basePath + load.path)
        head.headers.reserveCapacity(5 + load.headers.count)
        head.headers.add(name: "host", value: plan.target.hostHeader)
        head.headers.add(name: "content-type", value: load.contentType)
        head.headers.add(name: "content-length", value: String(load.body.count))
        for (name, value) in load.headers { head.headers.add(name: name, value: value) }
        if let token = plan.bearerToken { head.headers.add(name: "authorization", value: "Bearer " + token) }
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
        context.write(self.wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: load.body)))), promise: nil)
        context.write(self.wrapOutboundOut(.end(nil)), promise: nil)
        self.state.inFlight.append(.init(intended: intended, sentAt: ContinuousClock.now, counted: counted))
    }

    private func finish(context: ChannelHandlerContext) {
        guard !self.state.isFinished else { return }
        self.state.isFinished = true
        self.closing = true
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension LoadConnectionHandler: Sendable {}
