import NIOCore
import NIOHPACK
import NIOHTTP2

/// Runs every request stream of one connection as frames on the connection's own pipeline: a
/// gateway opens one stream per notification, and a child channel per stream (NIOHTTP2's
/// multiplexer) cost more CPU than the rest of a push. Lives on the connection's event loop;
/// `HTTP2Connection` reaches it through a `NIOLoopBound`.
///
/// Requests written in one event-loop tick share one flush, so they leave in few TLS records and
/// system calls: a fifth less CPU per push for the sink, 7 % for Herald, and no measurable
/// latency (docs/benchmarks.md, issue 17).
final class HTTP2StreamsHandler: ChannelDuplexHandler, HTTP2StreamSending {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// How a stream ended without a complete response.
    enum StreamEnded: Error, Equatable {
        /// Reset by the peer or by NIOHTTP2 (a protocol error on the stream).
        case reset(HTTP2ErrorCode)
        /// Closed with the connection, or refused by a GOAWAY, before any answer.
        case closed
        /// No complete answer within the request's deadline; the stream was reset with CANCEL.
        case timedOut
        /// The response body passed `maximumBodySize`.
        case bodyTooLarge
    }

    private struct Pending {
        var answer: Answer
        var status: Int?
        var headers = HTTP2Fields()
        var body: [UInt8] = []
        /// A WINDOW_UPDATE for this stream is written and not yet seen applied.
        var refillInFlight = false
    }

    /// Larger APNs or FCM answers do not exist; a peer sending more is misbehaving.
    static let maximumBodySize = 1 << 20
    /// RFC 9113's initial window, for the connection and for each stream (Herald advertises no
    /// other). Once half of it is used it is reopened in full, as NIOHTTP2's own multiplexer does.
    private static let initialWindow = 65_535

    private var context: ChannelHandlerContext?
    private var streams: [HTTP2StreamID: Pending] = [:]
    private var nextStreamID: Int32 = 1
    private var isOpen = true
    private var flushScheduled = false
    /// The last stream the peer will process, once it has sent GOAWAY.
    private var goAwayLastStreamID: HTTP2StreamID?
    /// Every stream with a deadline, and the connection's one timer for them.
    private var deadlines = StreamDeadlines<HTTP2StreamID>()
    private var deadlineTimer: Scheduled<Void>?
    /// A connection WINDOW_UPDATE is written and not yet seen applied (NIOHTTP2 holds frames
    /// while the socket is not writable; a second one meanwhile would open the window twice).
    private var connectionRefillInFlight = false

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        self.failAll(.closed)
    }

    /// Opens a stream and sends `request` on it; `answer` gets the whole response. Must run on
    /// the connection's event loop.
    func send(_ request: HTTP2Connection.Request, timeout: TimeAmount?, answer: @escaping Answer) {
        // After a GOAWAY a new stream would be a connection error in NIOHTTP2.
        guard self.isOpen, self.goAwayLastStreamID == nil, let context = self.context, self.nextStreamID < Int32.max - 2 else {
            answer(.failure(.closed))
            return
        }
        let id = HTTP2StreamID(self.nextStreamID)
        self.nextStreamID += 2
        self.streams[id] = Pending(answer: answer)
        if let timeout {
            if let timer = self.deadlines.add(id, deadline: context.eventLoop.now + timeout) {
                self.setDeadlineTimer(for: timer, context: context)
            }
        }
        // A HEADERS frame NIOHTTP2 refuses (still waiting for a free stream when a GOAWAY
        // arrives, say) opens no stream, so no close event would ever end this request: its
        // write result does.
        let headersWritten = context.eventLoop.makePromise(of: Void.self)
        headersWritten.futureResult.assumeIsolated().whenFailure { _ in self.finish(id, .closed) }
        context.write(self.wrapOutboundOut(HTTP2Frame(streamID: id, payload: .headers(.init(headers: Self.headerBlock(of: request))))), promise: headersWritten)
        context.write(self.wrapOutboundOut(HTTP2Frame(streamID: id, payload: .data(.init(data: .byteBuffer(context.channel.allocator.buffer(bytes: request.body)), endStream: true)))), promise: nil)
        self.scheduleFlush(context: context)
    }

    /// The request's three parts as one block for NIOHPACK.
    private static func headerBlock(of request: HTTP2Connection.Request) -> HPACKHeaders {
        var block = request.head
        block.add(contentsOf: request.headers)
        block.add(contentsOf: request.tail)
        return block.hpackHeaders
    }

    func ping(_ data: UInt64) {
        guard self.isOpen, let context = self.context else { return }
        context.writeAndFlush(self.wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: data), ack: false))), promise: nil)
    }

    /// One flush for every frame written during this tick.
    private func scheduleFlush(context: ChannelHandlerContext) {
        guard !self.flushScheduled else { return }
        self.flushScheduled = true
        context.eventLoop.assumeIsolated().execute {
            self.flushScheduled = false
            self.context?.flush()
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = self.unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers):
            guard var pending = self.streams[frame.streamID] else { return }
            let status = headers.headers.first(name: ":status").flatMap { Int($0) } ?? 0
            // Informational (1xx) heads precede the real one; trailers follow it.
            if pending.status == nil, status >= 200 {
                pending.status = status
                pending.headers = HTTP2Fields(headers.headers)
                self.streams[frame.streamID] = pending
            }
            if headers.endStream { self.complete(frame.streamID) }
        case .data(let payload):
            guard let received = self.streams[frame.streamID]?.body.count else { return }
            if case .byteBuffer(let buffer) = payload.data {
                guard received + buffer.readableBytes <= Self.maximumBodySize else {
                    self.reset(frame.streamID, context: context, ending: .bodyTooLarge)
                    return
                }
                self.streams[frame.streamID]?.body.append(contentsOf: buffer.readableBytesView)
            }
            if payload.endStream { self.complete(frame.streamID) }
        case .rstStream(let code):
            self.finish(frame.streamID, .reset(code))
        case .goAway(let lastStreamID, _, _):
            self.goAwayLastStreamID = min(lastStreamID, self.goAwayLastStreamID ?? lastStreamID)
        default:
            break
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let closed = event as? StreamClosedEvent {
            // Answered streams are gone already; this one ended without its answer. Streams a
            // GOAWAY refused (NIOHTTP2 closes them with CANCEL) never reached the peer: they
            // go to another connection at once, not after a reset's back-off.
            let refused = self.goAwayLastStreamID.map { closed.streamID > $0 } ?? false
            self.finish(closed.streamID, refused ? .closed : closed.reason.map { .reset($0) } ?? .closed)
        } else if let window = event as? NIOHTTP2WindowUpdatedEvent {
            self.reopenIfLow(window, context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.isOpen = false
        self.failAll(.closed)
        context.fireChannelInactive()
    }

    /// Reopens the connection's and an open stream's receive windows once half is used: without
    /// a multiplexer nothing else does, and the peer would stop sending answers. Driven by
    /// NIOHTTP2's window events rather than by the DATA frames seen here, because NIOHTTP2 charges
    /// the connection window for DATA on streams already reset and never passes those frames on.
    private func reopenIfLow(_ window: NIOHTTP2WindowUpdatedEvent, context: ChannelHandlerContext) {
        guard let size = window.inboundWindowSize else { return }
        let low = size <= Self.initialWindow / 2
        if window.streamID == .rootStream {
            guard low else {
                self.connectionRefillInFlight = false
                return
            }
            guard !self.connectionRefillInFlight else { return }
            self.connectionRefillInFlight = true
        } else {
            // A stream whose answer is complete has nothing more to receive.
            guard self.streams[window.streamID] != nil else { return }
            guard low else {
                self.streams[window.streamID]?.refillInFlight = false
                return
            }
            guard self.streams[window.streamID]?.refillInFlight == false else { return }
            self.streams[window.streamID]?.refillInFlight = true
        }
        let update = HTTP2Frame(streamID: window.streamID, payload: .windowUpdate(windowSizeIncrement: Self.initialWindow - size))
        context.write(self.wrapOutboundOut(update), promise: nil)
        self.scheduleFlush(context: context)
    }

    private func complete(_ id: HTTP2StreamID) {
        guard let pending = self.streams.removeValue(forKey: id) else { return }
        self.dropAnsweredDeadlines()
        guard let status = pending.status else {
            // An answer without `:status` is a malformed stream, not a dead connection.
            pending.answer(.failure(.reset(.protocolError)))
            return
        }
        // Not reset: the stream closes by itself once our END_STREAM is out too. Resetting it
        // while that may still be queued would send RST_STREAM(CANCEL), and a peer counting
        // resets answers a stream of them with GOAWAY(ENHANCE_YOUR_CALM).
        pending.answer(.success(HTTP2Response(status: status, headers: pending.headers, body: pending.body)))
    }

    private func finish(_ id: HTTP2StreamID, _ ending: StreamEnded) {
        guard let pending = self.streams.removeValue(forKey: id) else { return }
        self.dropAnsweredDeadlines()
        pending.answer(.failure(ending))
    }

    /// Moves the connection's one timer to `deadline`.
    private func setDeadlineTimer(for deadline: NIODeadline, context: ChannelHandlerContext) {
        self.deadlineTimer?.cancel()
        self.deadlineTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
            self.deadlineTimer = nil
            self.deadlinesPassed()
        }
    }

    /// Resets the streams whose deadline passed and sets the timer for the earliest left.
    private func deadlinesPassed() {
        guard let context = self.context else { return }
        let (expired, next) = self.deadlines.timerFired(now: context.eventLoop.now) { self.streams[$0] != nil }
        for id in expired { self.reset(id, context: context, ending: .timedOut) }
        if self.isOpen, let next { self.setDeadlineTimer(for: next, context: context) }
    }

    private func dropAnsweredDeadlines() {
        self.deadlines.dropAnswered { self.streams[$0] != nil }
    }

    private func reset(_ id: HTTP2StreamID, context: ChannelHandlerContext, ending: StreamEnded) {
        self.finish(id, ending)
        context.write(self.wrapOutboundOut(HTTP2Frame(streamID: id, payload: .rstStream(.cancel))), promise: nil)
        self.scheduleFlush(context: context)
    }

    private func failAll(_ ending: StreamEnded) {
        let open = self.streams
        self.streams = [:]
        self.deadlines.removeAll()
        self.deadlineTimer?.cancel()
        self.deadlineTimer = nil
        for pending in open.values {
            pending.answer(.failure(ending))
        }
    }
}

@available(*, unavailable)
extension HTTP2StreamsHandler: Sendable {}
