import HTTPTypes
import HeraldFrontDoor
import MetricsTestKit
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import Synchronization
import Testing
@testable import HeraldServer

/// The pipeline's own answers to a direct route: which requests it takes, and that answers keep
/// request order however requests and answers interleave.
@Suite struct DirectRouteHandlerTests {
    /// Answers when the test says so.
    final class HeldRoute: DirectRoute {
        let method = HTTPRequest.Method.post
        let path = "/api/push"
        let maximumBodySize = 100
        private let pending = Mutex<[(body: String, promise: EventLoopPromise<DirectResponse>)]>([])

        func takes(_ request: HTTPRequest) -> Bool { request.headerFields[.init("X-Router")!] == nil }

        func respond(to request: HTTPRequest, body: ByteBuffer, client: String?, on eventLoop: any EventLoop) -> EventLoopFuture<DirectResponse> {
            let promise = eventLoop.makePromise(of: DirectResponse.self)
            self.pending.withLock { $0.append((String(buffer: body), promise)) }
            return promise.futureResult
        }

        var bodies: [String] { self.pending.withLock { $0.map(\.body) } }

        /// Answers the oldest request still waiting with its own body.
        func answerNext(status: HTTPResponse.Status = .ok) {
            let next = self.pending.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            next?.promise.succeed(DirectResponse(status: status, headers: [.contentType: "text/plain"], body: ByteBuffer(string: "answer to " + (next?.body ?? ""))))
        }
    }

    /// A count or flag a handler sets and the test reads.
    final class Tally: Sendable {
        private let count = Mutex(0)
        var value: Int { self.count.withLock { $0 } }
        func add() { self.count.withLock { $0 += 1 } }
    }

    /// Counts the connection's reads, first in the pipeline.
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = Never
        let reads: Tally

        init(_ reads: Tally) { self.reads = reads }

        func read(context: ChannelHandlerContext) {
            self.reads.add()
            context.read()
        }
    }

    struct Connection {
        let channel: EmbeddedChannel
        let route: HeldRoute
        let metrics: TestMetrics

        init(token: String? = nil, reads: Tally = Tally()) throws {
            self.route = HeldRoute()
            self.metrics = TestMetrics()
            let routing = DirectRouting(routes: [self.route], bearerToken: token, metrics: HTTPRequestMetrics(factory: self.metrics), serverName: "herald")
            self.channel = EmbeddedChannel()
            try self.channel.pipeline.syncOperations.addHandler(ReadCounter(reads))
            try self.channel.pipeline.syncOperations.addHandler(DirectRouteHandler(routing: routing))
            // Active, as a client's connection is: answers behind a closed one are not taken.
            try self.channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        }

        func send(_ method: HTTPRequest.Method, _ path: String, body: String = "", headers: HTTPFields = [:], length: Bool = true) throws {
            var fields = headers
            if length { fields[.contentLength] = String(body.utf8.count) }
            try self.channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: method, scheme: nil, authority: "h", path: path, headerFields: fields)))
            if !body.isEmpty { try self.channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: body))) }
            try self.channel.writeInbound(HTTPRequestPart.end(nil))
            self.channel.embeddedEventLoop.run()
        }

        /// The paths of the requests that reached the router, in order.
        func routed() throws -> [String] {
            var paths: [String] = []
            while let part = try self.channel.readInbound(as: HTTPRequestPart.self) {
                if case .head(let request) = part { paths.append(request.path ?? "") }
            }
            return paths
        }

        /// The router answers its oldest request.
        func routerAnswers(_ text: String) throws {
            try self.channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
            try self.channel.writeOutbound(HTTPResponsePart.body(ByteBuffer(string: text)))
            try self.channel.writeOutbound(HTTPResponsePart.end(nil))
        }

        /// The answers written to the client so far, each as its status and body.
        func answers() throws -> [(HTTPResponse, String)] {
            var answers: [(HTTPResponse, String)] = []
            var head: HTTPResponse?
            var body = ""
            while let part = try self.channel.readOutbound(as: HTTPResponsePart.self) {
                switch part {
                case .head(let response): head = response
                case .body(let bytes): body += String(buffer: bytes)
                case .end:
                    if let head { answers.append((head, body)) }
                    head = nil
                    body = ""
                }
            }
            return answers
        }

        func advance() {
            self.channel.embeddedEventLoop.run()
        }
    }

    @Test func answersARequestItTakesWithTheListenersHeaders() throws {
        let connection = try Connection()
        try connection.send(.post, "/api/push?x=1", body: "one")
        #expect(try connection.routed().isEmpty)
        #expect(connection.route.bodies == ["one"])
        #expect(try connection.answers().isEmpty, "nothing before the route answers")
        connection.route.answerNext(status: .accepted)
        connection.advance()
        let answers = try connection.answers()
        try #require(answers.count == 1)
        #expect(answers[0].0.status == .accepted)
        #expect(answers[0].1 == "answer to one")
        #expect(answers[0].0.headerFields[.contentLength] == String("answer to one".utf8.count))
        #expect(answers[0].0.headerFields[.contentType] == "text/plain")
        #expect(answers[0].0.headerFields[.server] == "herald")
        #expect(answers[0].0.headerFields[.date]?.hasSuffix(" GMT") == true)
        let counter = try connection.metrics.expectCounter(HTTPRequestMetrics.requestsLabel, [("route", "/api/push"), ("method", "POST"), ("status", "202")])
        #expect(counter.totalValue == 1)
        _ = try connection.channel.finish()
    }

    @Test func leavesToTheRouterWhatItDoesNotTake() throws {
        let connection = try Connection(token: "s3cret")
        let bearer: HTTPFields = [.authorization: "Bearer s3cret"]
        try connection.send(.post, "/api/push", body: "no token")
        try connection.routerAnswers("401")
        try connection.send(.post, "/api/push", body: "wrong token", headers: [.authorization: "Bearer s3cre"])
        try connection.routerAnswers("401")
        try connection.send(.get, "/api/push", headers: bearer)
        try connection.routerAnswers("405")
        try connection.send(.post, "/api/push/", body: "x", headers: bearer)
        try connection.routerAnswers("404")
        try connection.send(.post, "/api/push", body: String(repeating: "x", count: 101), headers: bearer)
        try connection.routerAnswers("413")
        var chunked = bearer
        chunked[.transferEncoding] = "chunked"
        try connection.send(.post, "/api/push", body: "chunked", headers: chunked, length: false)
        try connection.routerAnswers("chunked")
        var expecting = bearer
        expecting[.expect] = "100-continue"
        try connection.send(.post, "/api/push", body: "expect", headers: expecting)
        try connection.routerAnswers("expect")
        var declined = bearer
        declined[.init("X-Router")!] = "1"
        try connection.send(.post, "/api/push", body: "declined", headers: declined)
        try connection.routerAnswers("declined")
        #expect(try connection.routed() == ["/api/push", "/api/push", "/api/push", "/api/push/", "/api/push", "/api/push", "/api/push", "/api/push"])
        #expect(connection.route.bodies.isEmpty)
        try connection.send(.post, "/api/push", body: "taken", headers: bearer)
        #expect(try connection.routed().isEmpty)
        #expect(connection.route.bodies == ["taken"])
        _ = try connection.channel.finish()
    }

    @Test func aRequestBehindOneWithTheRouterGoesToTheRouterToo() throws {
        let connection = try Connection()
        try connection.send(.get, "/healthz")
        try connection.send(.post, "/api/push", body: "behind the router")
        #expect(try connection.routed() == ["/healthz", "/api/push"], "both with the router: it answers in order")
        #expect(connection.route.bodies.isEmpty)
        try connection.routerAnswers("healthz")
        try connection.routerAnswers("push")
        try connection.send(.post, "/api/push", body: "after")
        #expect(connection.route.bodies == ["after"], "taken once the router has answered all it had")
        _ = try connection.channel.finish()
    }

    @Test func aClientWaitingForItsAnswerIsReadOnMeanwhile() throws {
        let reads = Tally()
        let connection = try Connection(reads: reads)
        try connection.send(.post, "/api/push", body: "only")
        let readsBefore = reads.value
        connection.channel.read()
        #expect(reads.value == readsBefore + 1, "nothing is held, so the read goes on: the socket stays registered")
        try connection.send(.post, "/api/push", body: "pipelined")
        connection.channel.read()
        #expect(reads.value == readsBefore + 1, "with a request held, reads wait")
        #expect(connection.route.bodies == ["only"])
        connection.route.answerNext()
        connection.advance()
        #expect(try connection.answers().map(\.1) == ["answer to only"])
        #expect(connection.route.bodies == ["pipelined"], "the held request is taken after the answer")
        #expect(reads.value == readsBefore + 1, "its own answer is pending, so the wanted read still waits")
        connection.route.answerNext()
        connection.advance()
        #expect(try connection.answers().map(\.1) == ["answer to pipelined"])
        #expect(reads.value == readsBefore + 2, "the held read goes on")
        _ = try connection.channel.finish()
    }

    @Test func whatArrivesBehindAnAnswerWaitsForIt() throws {
        let reads = Tally()
        let connection = try Connection(reads: reads)
        try connection.send(.post, "/api/push", body: "first")
        try connection.send(.get, "/healthz")
        try connection.send(.post, "/api/push", body: "third")
        connection.channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        let readsBefore = reads.value
        connection.channel.read()
        #expect(reads.value == readsBefore, "no more reads while an answer is made")
        #expect(try connection.routed().isEmpty, "the router sees nothing before the first answer")
        #expect(connection.route.bodies == ["first"])

        connection.route.answerNext()
        connection.advance()
        #expect(try connection.answers().map(\.1) == ["answer to first"])
        // The third arrived while the router had the second: the router answers both, in order.
        #expect(try connection.routed() == ["/healthz", "/api/push"])
        #expect(connection.route.bodies.isEmpty)
        #expect(reads.value == readsBefore + 1, "the held read goes on")
        try connection.routerAnswers("healthz")
        try connection.routerAnswers("third")
        #expect(try connection.answers().map(\.1) == ["healthz", "third"])
        _ = try connection.channel.finish()
    }

    @Test func aPipelinedDirectRequestWaitsForTheOneBeforeIt() throws {
        let connection = try Connection()
        let closed = Tally()
        try connection.channel.pipeline.syncOperations.addHandler(InputClosedWatcher(closed))
        try connection.send(.post, "/api/push", body: "first")
        try connection.send(.post, "/api/push", body: "second")
        connection.channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(connection.route.bodies == ["first"])
        #expect(closed.value == 0, "the client's end waits behind the answers")
        connection.route.answerNext()
        connection.advance()
        #expect(connection.route.bodies == ["second"])
        #expect(closed.value == 0)
        connection.route.answerNext()
        connection.advance()
        #expect(try connection.answers().map(\.1) == ["answer to first", "answer to second"])
        #expect(closed.value == 1)
        #expect(try connection.routed().isEmpty)
        _ = try connection.channel.finish()
    }

    @Test func aBodyInPartsIsReadWhole() throws {
        let connection = try Connection()
        let request = HTTPRequest(method: .post, scheme: nil, authority: "h", path: "/api/push", headerFields: [.contentLength: "9"])
        try connection.channel.writeInbound(HTTPRequestPart.head(request))
        for piece in ["one", "two", "six"] { try connection.channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: piece))) }
        try connection.channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(connection.route.bodies == ["onetwosix"])
        _ = try connection.channel.finish()
    }

    @Test func nothingBehindARequestAskingToCloseIsTaken() throws {
        let connection = try Connection()
        try connection.send(.post, "/api/push", body: "last", headers: [.connection: "keep-alive, Close"])
        try connection.send(.post, "/api/push", body: "after the close")
        try connection.send(.get, "/healthz")
        connection.route.answerNext()
        connection.advance()
        #expect(try connection.answers().map(\.1) == ["answer to last"])
        #expect(connection.route.bodies.isEmpty, "the pipelined push is never sent")
        #expect(try connection.routed().isEmpty)
        _ = try connection.channel.finish()
    }

    @Test func aParseErrorBehindAnAnswerWaitsForIt() throws {
        let connection = try Connection()
        let errors = ErrorRecorder()
        try connection.channel.pipeline.syncOperations.addHandler(errors)
        try connection.send(.post, "/api/push", body: "first")
        connection.channel.pipeline.fireErrorCaught(HTTPParserError.invalidHeaderToken)
        #expect(errors.count.value == 0, "held while the first is answered")
        connection.route.answerNext()
        connection.advance()
        #expect(try connection.answers().map(\.1) == ["answer to first"])
        #expect(errors.count.value == 1, "passed on after the answer")
        _ = try? connection.channel.finish()
    }

    @Test func aConnectionGoneWhileAnsweringTakesNothingMore() throws {
        let connection = try Connection()
        try connection.send(.post, "/api/push", body: "first")
        try connection.send(.post, "/api/push", body: "second")
        connection.channel.close(promise: nil)
        connection.route.answerNext()
        connection.advance()
        #expect(connection.route.bodies.isEmpty, "the second push is never sent")
    }

    /// Counts the errors that reach the router's side.
    final class ErrorRecorder: ChannelInboundHandler {
        typealias InboundIn = HTTPRequestPart
        let count = Tally()

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            self.count.add()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.fireChannelRead(data)
        }
    }

    /// Notes the client's end of the stream reaching the router's side.
    final class InputClosedWatcher: ChannelInboundHandler {
        typealias InboundIn = HTTPRequestPart
        let closed: Tally

        init(_ closed: Tally) { self.closed = closed }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if (event as? ChannelEvent) == .inputClosed { self.closed.add() }
            context.fireUserInboundEventTriggered(event)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.fireChannelRead(data)
        }
    }

    @Test func theDateIsIMFFixdate() {
        #expect(HTTPDateCache.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDateCache.format(1_795_770_150) == "Fri, 27 Nov 2026 09:02:30 GMT")
    }
}
