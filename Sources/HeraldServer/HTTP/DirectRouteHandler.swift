import HTTPTypes
import HeraldFrontDoor
import NIOCore
import NIOHTTPTypes

/// What the API listener answers from the pipeline, and what such an answer carries beside the
/// route's own.
struct DirectRouting: Sendable {
    let routes: [String: any DirectRoute]
    /// `api.bearer-token`: a request without it goes to the router, which refuses it.
    let bearerToken: [UInt8]?
    let metrics: HTTPRequestMetrics
    let dates: HTTPDateCache
    let serverName: String

    init(routes: [any DirectRoute], bearerToken: String?, metrics: HTTPRequestMetrics, serverName: String) {
        self.routes = Dictionary(routes.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        self.bearerToken = bearerToken.map { Array($0.utf8) }
        self.metrics = metrics
        self.dates = HTTPDateCache()
        self.serverName = serverName
    }

    /// The route that answers `request` here, if one does: its method and path, a body of a
    /// declared length the route accepts, no transfer coding or expectation, the API's token.
    func route(for request: HTTPRequest) -> (any DirectRoute)? {
        guard let target = request.path else { return nil }
        let path = target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target
        guard let route = self.routes[path], request.method == route.method,
            request.headerFields[.transferEncoding] == nil, request.headerFields[.expect] == nil,
            let length = request.headerFields[.contentLength].flatMap({ Int($0) }), length <= route.maximumBodySize
        else { return nil }
        if let token = self.bearerToken {
            let presented = BearerTokenMiddleware<HeraldRequestContext>.credentials(request.headerFields[.authorization] ?? "")
            guard BearerTokenMiddleware<HeraldRequestContext>.constantTimeEquals(presented, token) else { return nil }
        }
        return route.takes(request) ? route : nil
    }
}

/// Answers the requests a `DirectRoute` takes on the connection's event loop and passes every
/// other to Hummingbird. Last before Hummingbird's async channel, after its connection-state
/// handler, so idle timeouts, graceful shutdown, request deadlines and `Connection: close` see
/// these requests and answers like any other.
///
/// Answers leave in request order: a request is answered here only when none is with the
/// router, and while one is being answered here, what arrives behind it (and, once something
/// has, the connection's further reads) waits.
final class DirectRouteHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum State {
        /// Passing parts to the router.
        case forwarding
        /// Reading a request this handler answers (its body in `body`).
        case reading(any DirectRoute, HTTPRequest, since: ContinuousClock.Instant)
        /// Its answer is being made.
        case answering
        /// The request answered asked to close the connection (`Connection: close`), which
        /// closes once the answer is written: nothing after it is read, as RFC 9112 §9.6 asks.
        case closing
    }

    /// What arrived while a request was being answered here.
    private enum Held {
        case part(HTTPRequestPart)
        case event(Any)
        case error(any Error)
    }

    private let routing: DirectRouting
    private var state = State.forwarding
    /// The body of the request being read; outside `state`, so appending to it copies nothing.
    private var body: ByteBuffer?
    /// Requests passed to the router whose answer has not been written.
    private var routerRequests = 0
    private var held: [Held] = []
    private var readWanted = false

    init(routing: DirectRouting) {
        self.routing = routing
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = self.unwrapInboundIn(data)
        switch self.state {
        case .answering: self.held.append(.part(part))
        case .closing: break
        case .forwarding, .reading: self.handle(part, context: context)
        }
    }

    private func handle(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        switch (self.state, part) {
        case (.forwarding, .head(let request)):
            if self.routerRequests == 0, let route = self.routing.route(for: request) {
                self.state = .reading(route, request, since: .now)
                self.body = nil
            } else {
                self.routerRequests += 1
                context.fireChannelRead(self.wrapInboundOut(part))
            }
        case (.reading, .body(var bytes)):
            // Bounded: the route took only a declared length it accepts, and the decoder passes
            // no more than that length.
            if self.body == nil {
                self.body = bytes
            } else {
                self.body?.writeBuffer(&bytes)
            }
        case (.reading(let route, let request, let since), .end):
            self.state = .answering
            let body = self.body ?? ByteBuffer()
            self.body = nil
            self.answer(route, request, body: body, since: since, context: context)
        case (.reading, .head), (.answering, _), (.closing, _):
            // Not reached: the decoder gives a head only after the previous request's end, and
            // parts arriving while answering are held. Should it happen, the router has the say.
            assertionFailure("a request part out of order: \(part)")
            self.state = .forwarding
            context.fireChannelRead(self.wrapInboundOut(part))
        case (.forwarding, .body), (.forwarding, .end):
            context.fireChannelRead(self.wrapInboundOut(part))
        }
    }

    private func answer(_ route: any DirectRoute, _ request: HTTPRequest, body: ByteBuffer, since: ContinuousClock.Instant, context: ChannelHandlerContext) {
        let client = context.channel.remoteAddress.map { $0.ipAddress ?? "\($0)" }
        route.respond(to: request, body: body, client: client, on: context.eventLoop)
            .hop(to: context.eventLoop)
            .assumeIsolated()
            .whenComplete { result in
                let response = (try? result.get()) ?? DirectResponse(status: .internalServerError, headers: [:], body: ByteBuffer())
                self.write(response, context: context)
                self.routing.metrics.record(
                    route: route.path,
                    method: HTTPMetricsMiddleware<HeraldRequestContext>.methodLabel(request.method),
                    status: Int(response.status.code),
                    since: since
                )
                self.answered(context: context, closing: Self.asksToClose(request) || !context.channel.isActive)
            }
    }

    private func write(_ response: DirectResponse, context: ChannelHandlerContext) {
        var headers = response.headers
        headers[.contentLength] = String(response.body.readableBytes)
        headers[.date] = self.routing.dates.now
        headers[.server] = self.routing.serverName
        context.write(self.wrapOutboundOut(.head(HTTPResponse(status: response.status, headerFields: headers))), promise: nil)
        if response.body.readableBytes > 0 {
            context.write(self.wrapOutboundOut(.body(response.body)), promise: nil)
        }
        context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// Whether the request's `Connection` header asks to close after its answer.
    static func asksToClose(_ request: HTTPRequest) -> Bool {
        request.headerFields[values: .connection].contains { value in
            value.split(separator: ",").contains { $0.lowercased().filter { $0 != " " && $0 != "\t" } == "close" }
        }
    }

    /// Takes up what waited behind the answered request, in order, until another is answered
    /// here; then lets the connection read again. When the answered request closes the
    /// connection (or it is gone), the requests behind it are never taken: their pushes would
    /// go out with no one to answer.
    private func answered(context: ChannelHandlerContext, closing: Bool) {
        self.state = closing ? .closing : .forwarding
        var passed = false
        while !self.held.isEmpty {
            if case .answering = self.state { break }
            switch self.held.removeFirst() {
            case .part(let part):
                if case .forwarding = self.state { passed = true }
                if case .closing = self.state { continue }
                self.handle(part, context: context)
            case .event(let event):
                passed = true
                context.fireUserInboundEventTriggered(event)
            case .error(let error):
                passed = true
                context.fireErrorCaught(error)
            }
        }
        // Hummingbird's async channel hands reads on at a read's completion.
        if passed { context.fireChannelReadComplete() }
        if case .answering = self.state { return }
        if self.readWanted {
            self.readWanted = false
            context.read()
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client's end of the stream (half-closure) after a request answered here must not
        // end the connection before that answer.
        if case .answering = self.state {
            self.held.append(.event(event))
        } else if case .reading = self.state, (event as? ChannelEvent) == .inputClosed {
            // The request will never end: the router's side closes as for any cut request.
            self.state = .forwarding
            context.fireUserInboundEventTriggered(event)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// A parse error behind a request being answered here waits for that answer: passed on at
    /// once, Hummingbird would answer it 400 and close before the answer left.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case .answering = self.state {
            self.held.append(.error(error))
        } else {
            context.fireErrorCaught(error)
        }
    }

    /// While a request is answered here, reading goes on until something arrives behind it. A
    /// client that waits for each answer (most do) is read as if nothing were pending: pausing
    /// would take the socket out of the event loop's interest and put it back, two `epoll_ctl`
    /// calls a request. A client that pipelines has what it sent behind the request held, and
    /// nothing more is read until the answer leaves.
    func read(context: ChannelHandlerContext) {
        if case .answering = self.state, !self.held.isEmpty {
            self.readWanted = true
        } else {
            context.read()
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = self.unwrapOutboundIn(data), self.routerRequests > 0 { self.routerRequests -= 1 }
        context.write(data, promise: promise)
    }
}

@available(*, unavailable)
extension DirectRouteHandler: Sendable {}
