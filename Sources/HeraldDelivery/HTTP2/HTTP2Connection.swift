public import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
public import NIOSSL
import NIOTLS

/// One TLS + HTTP/2 client connection, many concurrent request streams on it.
///
/// Requests wait for a stream permit sized from the peer's SETTINGS (APNs starts token-auth
/// connections at one stream), and after a GOAWAY the connection takes no new work; its open
/// streams finish or fail with `HTTP2ConnectionError`, which the caller retries elsewhere.
public final class HTTP2Connection: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        /// Sent as `:authority` and, unless it is an IP address, as the TLS server name.
        public var authority: String
        public var tls: TLSConfiguration
        public var connectTimeout: Duration
        /// A PING every interval; a PING still unanswered at the next one closes the connection,
        /// so a silently dead peer fails its requests over instead of holding them to their
        /// deadline. `nil` sends none.
        public var pingInterval: Duration? = .seconds(60)
        /// The library that frames the connection's HTTP/2.
        public var codec: HTTP2Codec = .nghttp2

        /// TLS 1.2+ with ALPN `h2`; `trustRootsPEM` replaces the system roots (for test peers).
        public init(host: String, port: Int, authority: String? = nil, trustRootsPEM: [String]? = nil, connectTimeout: Duration = .seconds(10)) throws {
            self.host = host
            self.port = port
            self.authority = authority ?? host
            // Header blocks go out unvalidated (see `addHTTP2Handlers`): `:authority` is checked here.
            guard !self.authority.isEmpty, self.authority.utf8.count <= 255, self.authority.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw HTTP2ConnectionError(.connectFailed, "the authority \(self.authority) is not a host name")
            }
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.minimumTLSVersion = .tlsv12
            tls.applicationProtocols = ["h2"]
            if let trustRootsPEM {
                // A file may hold several certificates; every one is trusted.
                tls.trustRoots = .certificates(try trustRootsPEM.flatMap { try NIOSSLCertificate.fromPEMBytes(Array($0.utf8)) })
            }
            self.tls = tls
            self.connectTimeout = connectTimeout
        }
    }

    private let channel: any Channel
    private let streams: NIOLoopBound<any HTTP2StreamSending>
    private let state: HTTP2ConnectionDriver
    public let authority: String
    /// `:scheme` and `:authority`, sent before every request's own fields.
    public let requestHead: HTTP2Fields

    private init(channel: any Channel, streams: NIOLoopBound<any HTTP2StreamSending>, state: HTTP2ConnectionDriver, authority: String) {
        self.channel = channel
        self.streams = streams
        self.state = state
        self.authority = authority
        self.requestHead = Self.requestHead(authority: authority)
    }

    /// The fields a connection to `authority` puts before each request's.
    public static func requestHead(authority: String) -> HTTP2Fields {
        var head = HTTP2Fields()
        head.add(name: ":scheme", value: "https")
        head.add(name: ":authority", value: authority)
        return head
    }

    /// Connects, negotiates TLS and `h2`, and waits for the server's first SETTINGS frame.
    public static func connect(_ configuration: Configuration, group: any EventLoopGroup) async throws -> HTTP2Connection {
        let loop = group.next()
        let sslContext: NIOSSLContext
        do {
            sslContext = try NIOSSLContext(configuration: configuration.tls)
        } catch {
            throw HTTP2ConnectionError(.connectFailed, "TLS configuration: \(error)")
        }
        // Created only now: every path from here completes it (NIO traps on a dropped promise).
        let state = HTTP2ConnectionDriver(eventLoop: loop)
        let serverName = Self.isIPAddress(configuration.authority) ? nil : configuration.authority
        let timeout = TimeAmount(configuration.connectTimeout)
        do {
            let negotiated = try await ClientBootstrap(group: loop)
                .connectTimeout(timeout)
                .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                .connect(host: configuration.host, port: configuration.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        try sync.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: serverName))
                        try sync.addHandler(HTTP2ConnectErrorRecorder(state: state))
                        let alpn = NIOTypedApplicationProtocolNegotiationHandler<(any Channel, NIOLoopBound<any HTTP2StreamSending>)> { result, channel in
                            guard case .negotiated("h2") = result else {
                                return channel.close().flatMapThrowing {
                                    throw HTTP2ConnectionError(.connectFailed, "the server did not negotiate HTTP/2 (ALPN h2)")
                                }
                            }
                            return channel.eventLoop.makeCompletedFuture {
                                let streams = try configuration.codec.addHandlers(to: channel, state: state)
                                return (channel, NIOLoopBound(streams, eventLoop: channel.eventLoop))
                            }
                        }
                        try sync.addHandler(alpn)
                        return alpn.protocolNegotiationResult
                    }
                }
                .get()
            let prefaceTimeout = loop.scheduleTask(in: timeout) {
                state.preface.fail(HTTP2ConnectionError(.connectFailed, "no SETTINGS from the server within \(configuration.connectTimeout)"))
            }
            defer { prefaceTimeout.cancel() }
            do {
                try await state.preface.futureResult.get()
            } catch {
                try? await negotiated.0.close()
                throw error
            }
            let channel = negotiated.0
            // Deferred to its own turn of the loop: the last permit given back after a GOAWAY can
            // be given back from inside the pipeline (a stream's answer completing), and closing
            // there would run channelInactive in the middle of NIOHTTP2Handler's read.
            state.channelCreated { channel.eventLoop.execute { channel.close(promise: nil) } }
            let connection = HTTP2Connection(channel: channel, streams: negotiated.1, state: state, authority: configuration.authority)
            if let interval = configuration.pingInterval { connection.startPinging(every: interval) }
            return connection
        } catch {
            // A TLS failure reaches the connect call as "output closed"; the recorded error says why.
            let cause = state.firstError.map { "\($0)" } ?? "\(error)"
            let failure = error as? HTTP2ConnectionError ?? HTTP2ConnectionError(.connectFailed, "\(configuration.host):\(configuration.port): \(cause)")
            // The promise must be completed on every path (NIO traps on a dropped promise).
            state.preface.fail(failure)
            throw failure
        }
    }

    /// Adds the HTTP/2 client handlers behind TLS (or, in tests, behind nothing): NIOHTTP2 in
    /// frame mode, the observer reporting to `state`, and the streams handler. Must run on the
    /// channel's event loop.
    static func addHTTP2Handlers(to channel: any Channel, state: HTTP2ConnectionDriver) throws -> HTTP2StreamsHandler {
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        // NIOHTTP2 would check every field of every block, both ways, at a twentieth of a push's
        // CPU. Herald's own requests are checked where their values come from (APNSRequest,
        // FCMRequest, the FCM access token, the project id, `:authority`), and of an answer only
        // `:status` is read, as a number.
        connection.headerBlockValidation = .disabled
        connection.initialSettings = [
            HTTP2Setting(parameter: .enablePush, value: 0),
            HTTP2Setting(parameter: .maxHeaderListSize, value: HPACKDecoder.defaultMaxHeaderListSize),
        ]
        var stream = NIOHTTP2Handler.StreamConfiguration()
        // A peer refusing many streams at once (APNs lowering its limit) is normal here, not an
        // attack.
        stream.streamResetFrameRateLimit.maximumCount = 10_000
        let streams = HTTP2StreamsHandler()
        let sync = channel.pipeline.syncOperations
        try sync.addHandler(NIOHTTP2Handler(mode: .client, connectionConfiguration: connection, streamConfiguration: stream))
        try sync.addHandler(HTTP2ConnectionObserver(state: state))
        try sync.addHandler(streams)
        return streams
    }

    /// The event loop the connection's I/O runs on.
    public var eventLoop: any EventLoop { self.channel.eventLoop }

    /// Whether new requests may be sent here (open, and no GOAWAY received).
    public var isUsable: Bool { self.state.isUsable }
    /// The peer's current stream limit.
    public var maxConcurrentStreams: Int { self.state.maxConcurrentStreams }
    /// Streams open now (requests in flight).
    public var openStreams: Int { self.state.openStreams }

    /// A request for one stream. Its header block is `head`, `headers` and `tail` in that order:
    /// the parts a batch's requests share (the connection's `requestHead`, the authorization)
    /// are not copied into each.
    public struct Request: Sendable {
        public var head: HTTP2Fields
        public var headers: HTTP2Fields
        public var tail: HTTP2Fields
        public var body: [UInt8]
        /// Bounds the wait for a stream permit and, once the stream is open, the wait for its
        /// answer.
        public var deadline: Duration?

        public init(head: HTTP2Fields = HTTP2Fields(), headers: HTTP2Fields, tail: HTTP2Fields = HTTP2Fields(), body: [UInt8], deadline: Duration?) {
            self.head = head
            self.headers = headers
            self.tail = tail
            self.body = body
            self.deadline = deadline
        }
    }

    /// Sends one request and returns the whole response, waiting for a stream permit if none is
    /// free. A cancelled task stops waiting for the stream (not for an answer on one). The header
    /// block is `head`, `headers`, `tail`: pass `requestHead` as `head` unless `headers` is a
    /// whole block with `:scheme` and `:authority` of its own.
    public func send(
        head: HTTP2Fields = HTTP2Fields(),
        headers: HTTP2Fields,
        tail: HTTP2Fields = HTTP2Fields(),
        body: [UInt8],
        deadline: Duration? = nil
    ) async throws -> HTTP2Response {
        try Task.checkCancellation()
        let promise = self.channel.eventLoop.makePromise(of: HTTP2Response.self)
        let started = self.begin([Request(head: head, headers: headers, tail: tail, body: body, deadline: deadline)], waitingForStreams: true) { _, result in
            promise.completeWith(result)
        }
        guard let waiter = started.waiting.first else { return try await promise.futureResult.get() }
        let state = self.state
        return try await withTaskCancellationHandler {
            // Cancelled before the waiter was queued: the handler ran with nothing to cancel.
            if Task.isCancelled { state.cancelWaiter(waiter) }
            return try await promise.futureResult.get()
        } onCancel: {
            state.cancelWaiter(waiter)
        }
    }

    /// Sends those of `requests` that find a free stream permit now, in one trip to the event
    /// loop and without a task or a future each. `sent` tells which left; those that did not
    /// (no permit, or the peer going away) are for the caller to send elsewhere. `answers`
    /// completes once every request sent has its answer or failure (an `HTTP2ConnectionError`),
    /// in the order of `requests`, `nil` for those not sent.
    public func startTogether(_ requests: [Request]) -> (sent: [Bool], answers: EventLoopFuture<[Result<HTTP2Response, any Error>?]>) {
        let gathered = GatheredAnswers(count: requests.count, on: self.channel.eventLoop)
        let started = self.begin(requests, waitingForStreams: false) { slot, result in gathered.answer(slot, result) }
        gathered.expect(started.sent.reduce(0) { $0 + ($1 ? 1 : 0) })
        return (started.sent, gathered.futureResult)
    }

    /// Sends `requests`: each that finds a free stream permit now at once, the others, when
    /// `waitingForStreams` is set, once one is free (first come first served, within its
    /// deadline). `answered` gets each sent request's index and its answer or failure (an
    /// `HTTP2ConnectionError`, a `CancellationError` for a cancelled wait), once; on the
    /// connection's event loop but for a wait that fails before a stream. Returns which were
    /// sent or queued, and the ids of those queued (for cancellation).
    private func begin(
        _ requests: [Request],
        waitingForStreams: Bool,
        answered: @escaping @Sendable (Int, Result<HTTP2Response, any Error>) -> Void
    ) -> (sent: [Bool], waiting: [StreamPermits.WaiterID]) {
        let loop = self.channel.eventLoop
        var sent: [Bool] = []
        sent.reserveCapacity(requests.count)
        var waiting: [StreamPermits.WaiterID] = []
        var writes: [(Request, TimeAmount?, HTTP2StreamSending.Answer)] = []
        writes.reserveCapacity(requests.count)
        let state = self.state
        let streams = self.streams
        for (index, request) in requests.enumerated() {
            let hasPermit = !state.isGoingAway && (try? state.acquireWithoutWaiting()) == true
            sent.append(hasPermit || waitingForStreams)
            guard hasPermit || waitingForStreams else { continue }
            let timeout = request.deadline.map { TimeAmount($0) }
            if hasPermit {
                writes.append((request, timeout, self.streamAnswer(index, deadline: request.deadline, answered: answered)))
                continue
            }
            let waiter = state.acquire(deadline: timeout.map { loop.now + $0 }) { admission in
                switch admission {
                case .success:
                    // A GOAWAY may have arrived while the request waited: a stream opened now
                    // would hang. (After a GOAWAY the last permit given back closes the
                    // connection.)
                    guard !state.isGoingAway else {
                        state.release()
                        answered(index, .failure(HTTP2ConnectionError(.goingAway, "the peer is going away", peerReason: state.goAwayReason)))
                        return
                    }
                    let answer = self.streamAnswer(index, deadline: request.deadline, answered: answered)
                    if loop.inEventLoop {
                        streams.value.send(request, timeout: timeout, answer: answer)
                    } else {
                        loop.execute { streams.value.send(request, timeout: timeout, answer: answer) }
                    }
                case .failure(let error):
                    answered(index, .failure(error))
                }
            }
            if let waiter { waiting.append(waiter) }
        }
        guard !writes.isEmpty else { return (sent, waiting) }
        if loop.inEventLoop {
            for (request, timeout, answer) in writes { streams.value.send(request, timeout: timeout, answer: answer) }
        } else {
            loop.execute { [writes] in
                for (request, timeout, answer) in writes { streams.value.send(request, timeout: timeout, answer: answer) }
            }
        }
        return (sent, waiting)
    }

    /// What request `index`'s stream answers with, once it holds a permit: the permit given
    /// back (so a retry finds it free), then the answer passed on, a `StreamEnded` as the
    /// connection's error.
    private func streamAnswer(
        _ index: Int,
        deadline: Duration?,
        answered: @escaping @Sendable (Int, Result<HTTP2Response, any Error>) -> Void
    ) -> HTTP2StreamSending.Answer {
        let state = self.state
        return { result in
            state.release()
            switch result {
            case .success(let response): answered(index, .success(response))
            case .failure(let ending): answered(index, .failure(self.error(for: ending, deadline: deadline)))
            }
        }
    }

    /// PINGs the peer answered so far.
    public var pingsAcknowledged: Int { self.state.pingsAcknowledged }

    private func startPinging(every interval: Duration) {
        let channel = self.channel
        let state = self.state
        let streams = self.streams
        let amount = TimeAmount(interval)
        let task = channel.eventLoop.scheduleRepeatedTask(initialDelay: amount, delay: amount) { task in
            guard channel.isActive else {
                task.cancel()
                return
            }
            // The state closes the channel when the previous PING is still unanswered.
            guard let data = state.pingIntervalPassed(interval, nextPing: UInt64.random(in: 1...UInt64.max)) else {
                task.cancel()
                return
            }
            streams.value.ping(data)
        }
        channel.closeFuture.whenComplete { _ in task.cancel() }
    }

    /// Closes the connection; requests in flight fail with `HTTP2ConnectionError.closed`.
    public func close() async {
        try? await self.channel.close()
    }

    /// Takes no new requests from now on and closes once the open ones are done (for a connection
    /// APNs said to replace: `Shutdown`, `IdleTimeout`, a key it is not bound to).
    public func retire(reason: String) {
        self.state.retire(reason: reason)
    }

    private func error(for ending: HTTP2StreamsHandler.StreamEnded, deadline: Duration?) -> HTTP2ConnectionError {
        switch ending {
        case .timedOut:
            return HTTP2ConnectionError(.timedOut, "no answer within \(deadline.map { "\($0)" } ?? "the deadline")")
        case .reset(let code):
            return HTTP2ConnectionError(.streamReset, "stream reset with \(code)", peerReason: self.state.goAwayReason)
        case .bodyTooLarge:
            return HTTP2ConnectionError(.streamReset, "response body larger than \(HTTP2StreamsHandler.maximumBodySize) bytes")
        case .closed:
            // Refused by a GOAWAY or cut off with the connection: another connection may take it.
            if self.state.isGoingAway {
                return HTTP2ConnectionError(.goingAway, "the peer is going away", peerReason: self.state.goAwayReason)
            }
            return HTTP2ConnectionError(.closed, "the connection closed before the answer")
        }
    }

    static func isIPAddress(_ text: String) -> Bool {
        (try? SocketAddress(ipAddress: text, port: 0)) != nil
    }
}
