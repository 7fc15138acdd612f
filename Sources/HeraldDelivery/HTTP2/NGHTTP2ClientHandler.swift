import CNGHTTP2
import NIOCore
import NIOHPACK
import NIOHTTP2

/// A provider connection's HTTP/2 on libnghttp2: one `nghttp2_session` fed the bytes TLS
/// decrypts and asked for the bytes to encrypt, in place of `NIOHTTP2Handler`,
/// `HTTP2ConnectionObserver` and `HTTP2StreamsHandler`. It answers requests as they do: the same
/// `StreamEnded` failures, the same reports to the connection's driver (SETTINGS, PING
/// acknowledgements, GOAWAY, the end), one deadline timer for the connection, and the frames
/// written during one event-loop tick sent with one flush. libnghttp2 keeps the flow-control
/// windows (it reopens them once half is used) and acknowledges SETTINGS and PINGs itself.
///
/// libnghttp2 calls back into the handler from inside `nghttp2_session_mem_recv` and
/// `_mem_send`; requests ended there have their answers given after the call returns, so
/// what their callbacks do (give back a permit, admit a waiting request) runs outside the
/// session. A raised stream limit in a SETTINGS frame admits waiting requests from inside it;
/// libnghttp2 allows submitting there, and the read's end sends them.
final class NGHTTP2ClientHandler: ChannelDuplexHandler, HTTP2StreamSending {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = Never
    typealias OutboundIn = Never
    typealias OutboundOut = ByteBuffer
    typealias StreamEnded = HTTP2StreamsHandler.StreamEnded

    /// A request's header block, which libnghttp2 reads in place (`NGHTTP2_NV_FLAG_NO_COPY_*`)
    /// when it encodes the HEADERS frame, and its body, read as DATA frames leave.
    struct Outgoing {
        /// Held unchanged until the body is sent, which is after the HEADERS frame is encoded,
        /// or until the stream closes or its HEADERS are not sent: a native array's elements do
        /// not move while it is held and not mutated, so the pointers libnghttp2 keeps stay valid.
        var fields: (head: HTTP2Fields, own: HTTP2Fields, tail: HTTP2Fields)
        var body: [UInt8]
        var sent = 0
    }

    struct Pending {
        var answer: Answer
        var status: Int?
        var headers = HTTP2Fields()
        var body: [UInt8] = []
    }

    private let state: HTTP2ConnectionDriver
    private var session: OpaquePointer?
    private(set) var context: ChannelHandlerContext?
    var streams: [Int32: Pending] = [:]
    /// What is left to send of each request, kept apart from `streams`: a peer may answer
    /// before the whole body is out (waiting for its window), and the stream must still end
    /// cleanly rather than be reset. Dropped once the body is sent or when the stream closes.
    var outgoing: [Int32: Outgoing] = [:]
    private var started = false
    private var isOpen = true
    /// Inside `nghttp2_session_mem_recv` or `_mem_send`: answers wait in `completions`.
    private var inSession = false
    private var completions: [(Answer, Result<HTTP2Response, StreamEnded>)] = []
    /// Between `channelRead` and `channelReadComplete`, which sends what was submitted meanwhile.
    private var reading = false
    private var flushScheduled = false
    /// The last stream the peer will process, once it has sent GOAWAY.
    var goAwayLastStreamID: Int32?
    /// Why libnghttp2 ended the session, for the driver's reason.
    var sessionError: String?
    /// The last frame libnghttp2 refused, for the reason of the GOAWAY it answers with.
    var lastInvalidFrame: String?
    /// Every stream with a deadline, and the connection's one timer for them.
    private var deadlines = StreamDeadlines<Int32>()
    private var deadlineTimer: Scheduled<Void>?
    /// The header block being received (a 1xx head, an answer's, or trailers), on one stream at
    /// a time: HTTP/2 sends a block's frames back to back. Reused, and copied out at its end at
    /// its size, so an answer's fields cost one allocation, not one for each doubling.
    var receivedBlock = HTTP2Fields()
    /// The open stream `receivedBlock` belongs to; `nil` while none is received or its stream
    /// is unknown (ended, reset), whose fields are not kept.
    var receivedBlockStream: Int32?
    /// Reused for each request's `nghttp2_nv` entries, which point into its `HTTP2Fields`.
    private var headerEntries: [nghttp2_nv] = []

    init(state: HTTP2ConnectionDriver) {
        self.state = state
    }

    deinit {
        if let session = self.session { nghttp2_session_del(session) }
    }

    /// Frees the session's tables and queues once the connection is gone (the handler lives on
    /// while `HTTP2Connection` does); never from inside one of its calls.
    private func releaseSessionIfRemoved() {
        guard self.context == nil, !self.inSession, let session = self.session else { return }
        self.session = nil
        self.outgoing = [:]
        nghttp2_session_del(session)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // Added after ALPN, the channel is active already; in tests it becomes active later.
        if context.channel.isActive { self.start(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.isOpen = false
        self.failAll()
        self.context = nil
        self.releaseSessionIfRemoved()
    }

    func channelActive(context: ChannelHandlerContext) {
        self.start(context: context)
        context.fireChannelActive()
    }

    /// Creates the session and sends the preface with Herald's SETTINGS: no server push, and the
    /// header list size NIOHPACK allows.
    private func start(context: ChannelHandlerContext) {
        guard !self.started else { return }
        self.started = true
        do {
            self.session = try Self.makeSession(userData: Unmanaged.passUnretained(self).toOpaque())
        } catch {
            self.connectionFailed("\(error)", context: context)
            return
        }
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: UInt32(HPACKDecoder.defaultMaxHeaderListSize)),
        ]
        let submitted = nghttp2_submit_settings(self.session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        guard submitted == 0 else {
            self.connectionFailed("nghttp2_submit_settings: \(Self.describe(submitted))", context: context)
            return
        }
        self.sendPending(context: context)
    }

    // MARK: Requests

    func send(_ request: HTTP2Connection.Request, timeout: TimeAmount?, answer: @escaping Answer) {
        // A stream opened after a GOAWAY would never be answered.
        guard self.isOpen, self.goAwayLastStreamID == nil, let context = self.context, let session = self.session else {
            self.settle(answer, .failure(.closed))
            return
        }
        let id = self.submit(request, session: session)
        guard id > 0 else {
            // No stream id left (2^31 requests on one connection) or no memory: another
            // connection takes it.
            self.settle(answer, .failure(.closed))
            return
        }
        self.streams[id] = Pending(answer: answer)
        self.outgoing[id] = Outgoing(fields: (request.head, request.headers, request.tail), body: request.body)
        if let timeout {
            if let timer = self.deadlines.add(id, deadline: context.eventLoop.now + timeout) {
                self.setDeadlineTimer(for: timer, context: context)
            }
        }
        self.scheduleSend(context: context)
    }

    /// Submits the HEADERS of a request whose body the data source reads from `outgoing`: one
    /// `nghttp2_nv` list over the request's three parts, whose names and values libnghttp2 does
    /// not copy (the copy was an allocation above malloc's per-thread cache, about 1 KB with
    /// the provider token, a request): `send` keeps the parts in `outgoing` until the frame is
    /// encoded.
    private func submit(_ request: HTTP2Connection.Request, session: OpaquePointer) -> Int32 {
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: Self.readBody)
        self.headerEntries.removeAll(keepingCapacity: true)
        return request.head.withUnsafeFields { head in
            request.headers.withUnsafeFields { own in
                request.tail.withUnsafeFields { tail in
                    self.appendEntries(head)
                    self.appendEntries(own)
                    self.appendEntries(tail)
                    return self.headerEntries.withUnsafeBufferPointer { entries in
                        nghttp2_submit_request(session, nil, entries.baseAddress, entries.count, &provider, nil)
                    }
                }
            }
        }
    }

    /// `nghttp2_nv` entries for `fields`, pointing into their storage, which `outgoing` holds.
    private func appendEntries(_ fields: HTTP2Fields.UnsafeFields) {
        let noCopy = UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue | NGHTTP2_NV_FLAG_NO_COPY_VALUE.rawValue)
        for field in fields {
            self.headerEntries.append(
                nghttp2_nv(
                    // Never nil, even for an empty name or value: each points into the fields'
                    // storage. libnghttp2 never writes through them.
                    name: UnsafeMutablePointer(mutating: field.name.baseAddress!),
                    value: UnsafeMutablePointer(mutating: field.value.baseAddress!),
                    namelen: field.name.count,
                    valuelen: field.value.count,
                    // Fields marked not to index (per-push ids and expirations) stay out of the
                    // peer's table, as NIOHPACK leaves them. (libnghttp2 never indexes
                    // `authorization`.)
                    flags: noCopy | (field.indexable ? UInt8(NGHTTP2_NV_FLAG_NONE.rawValue) : UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue))
                )
            )
        }
    }

    func ping(_ data: UInt64) {
        guard self.isOpen, let session = self.session, let context = self.context else { return }
        let opaque = (0..<8).map { UInt8(truncatingIfNeeded: data >> (56 - 8 * $0)) }
        let submitted = nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), opaque)
        guard submitted == 0 else { return }
        self.sendPending(context: context)
    }

    /// One send for everything submitted during this tick; within a read, its end sends.
    private func scheduleSend(context: ChannelHandlerContext) {
        guard !self.reading, !self.flushScheduled else { return }
        self.flushScheduled = true
        context.eventLoop.assumeIsolated().execute {
            self.flushScheduled = false
            if let context = self.context { self.sendPending(context: context) }
        }
    }

    /// Writes what the session has to send as one buffer and flushes it; closes the connection
    /// once the session wants neither to read nor to write (after a GOAWAY, or an error it
    /// answered with one).
    private func sendPending(context: ChannelHandlerContext) {
        guard let session = self.session, self.isOpen else { return }
        var output: ByteBuffer?
        self.inSession = true
        while true {
            var chunk: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &chunk)
            if count < 0 {
                self.inSession = false
                if let output { context.write(self.wrapOutboundOut(output), promise: nil) }
                self.runCompletions()
                self.connectionFailed("HTTP/2: \(Self.describe(Int32(count)))", context: context)
                return
            }
            guard count > 0, let chunk else { break }
            let bytes = UnsafeRawBufferPointer(start: chunk, count: count)
            if output == nil {
                output = context.channel.allocator.buffer(capacity: max(count, 1024))
            }
            output!.writeBytes(bytes)
        }
        self.inSession = false
        if let output {
            context.write(self.wrapOutboundOut(output), promise: nil)
            context.flush()
        }
        self.runCompletions()
        if nghttp2_session_want_read(session) == 0, nghttp2_session_want_write(session) == 0 {
            self.connectionFailed(self.sessionError ?? "the HTTP/2 session ended", context: context)
        }
        self.releaseSessionIfRemoved()
    }

    // MARK: Reads

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let session = self.session, self.isOpen else { return }
        let buffer = Self.unwrapInboundIn(data)
        self.reading = true
        self.inSession = true
        let consumed = buffer.withUnsafeReadableBytes { bytes in
            nghttp2_session_mem_recv(session, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
        }
        self.inSession = false
        if consumed < 0 {
            self.reading = false
            self.runCompletions()
            self.connectionFailed("HTTP/2: \(self.sessionError ?? Self.describe(Int32(consumed)))", context: context)
            self.releaseSessionIfRemoved()
            return
        }
        self.runCompletions()
        self.releaseSessionIfRemoved()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        self.reading = false
        // SETTINGS and PING acknowledgements, WINDOW_UPDATEs, and requests admitted by answers.
        self.sendPending(context: context)
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.connectionFailed("\(error)", context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.isOpen = false
        self.state.closed(because: "connection closed")
        self.failAll()
        context.fireChannelInactive()
    }

    /// Ends the connection: the driver hears why, open streams fail as closed.
    private func connectionFailed(_ reason: String, context: ChannelHandlerContext) {
        guard self.isOpen else { return }
        self.isOpen = false
        self.state.closed(because: reason)
        self.failAll()
        context.close(promise: nil)
    }

    // MARK: Stream ends (called from the session's callbacks too)

    /// The stream's answer is complete (END_STREAM received).
    func complete(_ id: Int32) {
        guard let pending = self.streams.removeValue(forKey: id) else { return }
        self.dropAnsweredDeadlines()
        guard let status = pending.status else {
            // An answer without `:status` is a malformed stream, not a dead connection.
            self.settle(pending.answer, .failure(.reset(.protocolError)))
            return
        }
        self.settle(pending.answer, .success(HTTP2Response(status: status, headers: pending.headers, body: pending.body)))
    }

    func finish(_ id: Int32, _ ending: StreamEnded) {
        guard let pending = self.streams.removeValue(forKey: id) else { return }
        // Fields of a block still arriving for it are not kept.
        if self.receivedBlockStream == id { self.receivedBlockStream = nil }
        self.dropAnsweredDeadlines()
        self.settle(pending.answer, .failure(ending))
    }

    /// Resets a stream with `code` (CANCEL unless the peer broke it) and fails its request with
    /// `ending`.
    func reset(_ id: Int32, ending: StreamEnded, code: nghttp2_error_code = NGHTTP2_CANCEL) {
        self.finish(id, ending)
        guard let session = self.session else { return }
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, code.rawValue)
        if !self.inSession, let context = self.context { self.scheduleSend(context: context) }
    }

    private func settle(_ answer: @escaping Answer, _ result: Result<HTTP2Response, StreamEnded>) {
        if self.inSession {
            self.completions.append((answer, result))
        } else {
            answer(result)
        }
    }

    private func runCompletions() {
        while !self.completions.isEmpty {
            let settled = self.completions
            self.completions.removeAll(keepingCapacity: true)
            for (answer, result) in settled { answer(result) }
        }
    }

    private func failAll() {
        let open = self.streams
        self.streams = [:]
        self.deadlines.removeAll()
        self.deadlineTimer?.cancel()
        self.deadlineTimer = nil
        for pending in open.values { self.settle(pending.answer, .failure(.closed)) }
        if !self.inSession { self.runCompletions() }
    }

    // MARK: Deadlines

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
        for id in expired { self.reset(id, ending: .timedOut) }
        if self.isOpen, let next { self.setDeadlineTimer(for: next, context: context) }
    }

    private func dropAnsweredDeadlines() {
        self.deadlines.dropAnswered { self.streams[$0] != nil }
    }

    // MARK: Driver reports

    func settingsReceived(maxConcurrentStreams: Int?) {
        self.state.settingsReceived(maxConcurrentStreams: maxConcurrentStreams)
    }

    func pingAcknowledged(_ data: UInt64) {
        self.state.pingAcknowledged(data)
    }

    func goAwayReceived(lastStreamID: Int32, errorCode: UInt32, debugData: String?) {
        self.goAwayLastStreamID = min(lastStreamID, self.goAwayLastStreamID ?? lastStreamID)
        self.state.goAwayReceived(lastStreamID: HTTP2StreamID(Int(lastStreamID)), errorCode: HTTP2ErrorCode(networkCode: Int(errorCode)), debugData: debugData)
    }

    static func describe(_ code: Int32) -> String {
        String(cString: nghttp2_strerror(code))
    }
}

@available(*, unavailable)
extension NGHTTP2ClientHandler: Sendable {}
