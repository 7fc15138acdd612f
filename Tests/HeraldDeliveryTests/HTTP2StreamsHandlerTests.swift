import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

@testable import HeraldDelivery

/// The client pipeline `HTTP2Connection` builds, with either codec (NIOHTTP2 in frame mode, the
/// observer and the streams handler; or libnghttp2's session) on an `EmbeddedChannel`, joined in memory to a NIOHTTP2 server whose frames
/// the test reads and writes: no TLS, no socket, time moved by hand.
@Suite struct HTTP2StreamsHandlerTests {
    typealias Peers = EmbeddedHTTP2Peers

    @Test(arguments: HTTP2Codec.allCases) func aRequestGetsItsAnswer(codec: HTTP2Codec) throws {
        let peers = try Peers(codec: codec)
        defer { peers.finish() }
        let answer = try peers.request(body: [1, 2, 3])
        peers.interact()
        let request = peers.server.frames(on: 1)
        #expect(request.headers?.first(name: ":path") == "/3/device/a1")
        #expect(request.body == [1, 2, 3])
        #expect(request.ended)
        peers.answer(1, status: 200, headers: [("apns-id", "x")], body: Array("{}".utf8))
        peers.interact()
        let response = try #require(answer.result).get()
        #expect(response.status == 200)
        #expect(response.headers.first(name: "apns-id") == "x")
        #expect(response.body == Array("{}".utf8))
        #expect(peers.state.openStreams == 0, "the permit is given back")
    }

    @Test(arguments: HTTP2Codec.allCases) func informationalHeadsAndTrailersDoNotReplaceTheAnswer(codec: HTTP2Codec) throws {
        let peers = try Peers(codec: codec)
        defer { peers.finish() }
        let answer = try peers.request()
        peers.interact()
        peers.server.write(HTTP2Frame(streamID: 1, payload: .headers(.init(headers: [":status": "103"]))))
        peers.server.write(HTTP2Frame(streamID: 1, payload: .headers(.init(headers: [":status": "410", "apns-id": "y"]))))
        peers.server.write(HTTP2Frame(streamID: 1, payload: .data(.init(data: .byteBuffer(ByteBuffer(string: "gone"))))))
        peers.server.write(HTTP2Frame(streamID: 1, payload: .headers(.init(headers: ["grpc-status": "0"], endStream: true))))
        peers.interact()
        let response = try #require(answer.result).get()
        #expect(response.status == 410)
        #expect(response.headers.first(name: "apns-id") == "y")
        #expect(response.body == Array("gone".utf8))
    }

    @Test(arguments: HTTP2Codec.allCases) func goAwayRefusesStreamsAboveItsLastStreamIDAsClosedAndLetsLowerOnesComplete(codec: HTTP2Codec) throws {
        let peers = try Peers(codec: codec)
        defer { peers.finish() }
        let answers = try (0..<3).map { _ in try peers.request() }
        peers.interact()
        #expect(peers.server.frames(on: 5).headers != nil, "streams 1, 3 and 5 reached the server")
        peers.server.write(HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: 1, errorCode: .noError, opaqueData: ByteBuffer(string: #"{"reason":"Shutdown"}"#))))
        peers.interact()
        for refused in answers.dropFirst() {
            #expect(throws: HTTP2StreamsHandler.StreamEnded.closed) { try refused.result?.get() }
        }
        #expect(answers[0].result == nil, "stream 1 is still being answered")
        #expect(peers.state.isGoingAway)
        #expect(peers.state.goAwayReason == "Shutdown")
        #expect(throws: HTTP2ConnectionError(.goingAway, "")) { try peers.request() }
        peers.answer(1, status: 200)
        peers.interact()
        #expect(try answers[0].result?.get().status == 200)
        #expect(!peers.client.isActive, "the last stream closed the connection")
    }

    @Test(arguments: HTTP2Codec.allCases) func aStreamStartedAfterAGoAwayFailsAsClosedWithoutReachingThePeer(codec: HTTP2Codec) throws {
        let peers = try Peers(codec: codec)
        defer { peers.finish() }
        let open = try peers.request()
        peers.interact()
        peers.server.write(HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: 1, errorCode: .noError, opaqueData: nil)))
        peers.interact()
        // As a request admitted just before the GOAWAY would: past the permits, into the handler.
        let late = peers.client.eventLoop.makePromise(of: HTTP2Response.self)
        peers.streams.send(HTTP2Connection.Request(headers: Peers.requestHeaders, body: [], deadline: nil), timeout: nil) { late.completeWith($0.mapError { $0 }) }
        var lateResult: Result<HTTP2Response, any Error>?
        late.futureResult.assumeIsolated().whenComplete { lateResult = $0 }
        #expect(throws: HTTP2StreamsHandler.StreamEnded.closed) { try lateResult?.get() }
        peers.interact()
        #expect(peers.server.frames(on: 3).headers == nil)
        peers.answer(1, status: 200)
        peers.interact()
        #expect(try open.result?.get().status == 200)
    }

    @Test(arguments: HTTP2Codec.allCases) func answersLargerThanTheInitialReceiveWindowArriveAsTheWindowIsReopened(codec: HTTP2Codec) throws {
        let peers = try Peers(codec: codec)
        defer { peers.finish() }
        let first = try peers.request()
        let second = try peers.request()
        peers.interact()
        // 200,000 bytes on each of two streams: the connection window (65,535) is used up
        // several times over, each stream's window three times.
        let body = [UInt8](repeating: 0x2a, count: 200_000)
        peers.answer(1, status: 200, body: body)
        peers.answer(3, status: 200, body: body)
        peers.interact()
        #expect(try first.result?.get().body == body)
        #expect(try second.result?.get().body == body)
        let updates = peers.server.received.compactMap { frame -> HTTP2StreamID? in
            guard case .windowUpdate = frame.payload else { return nil }
            return frame.streamID
        }
        #expect(updates.contains(.rootStream), "the connection window was reopened")
        #expect(updates.contains(1) && updates.contains(3), "each stream's window was reopened")
    }

    @Test(arguments: HTTP2Codec.allCases) func aLoweredStreamLimitLetsOpenStreamsFinishAndHoldsNewOnes(codec: HTTP2Codec) throws {
        let peers = try Peers(codec: codec)
        defer { peers.finish() }
        #expect(peers.state.maxConcurrentStreams == 100, "the server's NIOHTTP2 default")
        let answers = try (0..<3).map { _ in try peers.request() }
        peers.interact()
        peers.server.write(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: 1)]))))
        peers.interact()
        #expect(peers.state.maxConcurrentStreams == 1)
        #expect(peers.state.openStreams == 3)
        #expect(try !peers.state.acquireWithoutWaiting(), "a new request waits")
        for id: HTTP2StreamID in [1, 3, 5] { peers.answer(id, status: 200) }
        peers.interact()
        for answer in answers { #expect(try answer.result?.get().status == 200) }
        #expect(peers.state.openStreams == 0)
        #expect(try peers.state.acquireWithoutWaiting())
        peers.state.release()
    }

    @Test(arguments: HTTP2Codec.allCases) func aRetiredConnectionFinishesItsOpenStreamThenCloses(codec: HTTP2Codec) throws {
        let peers = try Peers(codec: codec)
        defer { peers.finish() }
        let open = try peers.request()
        peers.interact()
        peers.state.retire(reason: "Shutdown")
        #expect(!peers.state.isUsable)
        #expect(peers.client.isActive, "one stream is still open")
        #expect(throws: HTTP2ConnectionError(.goingAway, "")) { try peers.request() }
        peers.answer(1, status: 200)
        peers.interact()
        #expect(try open.result?.get().status == 200)
        #expect(!peers.client.isActive)
    }

    @Test(arguments: HTTP2Codec.allCases) func aRetiredConnectionWithAStuckStreamIsClosedAfterTheDrainLimit(codec: HTTP2Codec) throws {
        let peers = try Peers(codec: codec)
        defer { peers.finish() }
        let stuck = try peers.request()
        peers.interact()
        peers.state.retire(reason: "Shutdown")
        peers.client.embeddedEventLoop.advanceTime(by: HTTP2ConnectionDriver.drainLimit - .seconds(1))
        #expect(peers.client.isActive)
        peers.client.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!peers.client.isActive)
        #expect(throws: HTTP2StreamsHandler.StreamEnded.closed) { try stuck.result?.get() }
    }

    @Test(arguments: HTTP2Codec.allCases) func anUnansweredStreamIsResetWithCancelAtItsTimeout(codec: HTTP2Codec) throws {
        let peers = try Peers(codec: codec)
        defer { peers.finish() }
        let answer = try peers.request(timeout: .seconds(5))
        peers.interact()
        peers.client.embeddedEventLoop.advanceTime(by: .seconds(4))
        #expect(answer.result == nil)
        peers.client.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(throws: HTTP2StreamsHandler.StreamEnded.timedOut) { try answer.result?.get() }
        peers.interact()
        #expect(peers.server.frames(on: 1).reset == .cancel)
        #expect(peers.client.isActive, "only the stream ends")
    }

    /// One timer serves the connection: a later stream with a shorter deadline still ends on
    /// time, answered streams are never reset, and the timer keeps serving streams opened after
    /// it fired.
    @Test(arguments: HTTP2Codec.allCases) func eachStreamEndsAtItsOwnDeadlineWhateverTheOrder(codec: HTTP2Codec) throws {
        let peers = try Peers(codec: codec)
        defer { peers.finish() }
        let slow = try peers.request(timeout: .seconds(10))
        let answered = try peers.request(timeout: .seconds(3))
        let quick = try peers.request(timeout: .seconds(2))
        peers.interact()
        peers.answer(3, status: 200)
        peers.interact()
        peers.client.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(throws: HTTP2StreamsHandler.StreamEnded.timedOut) { try quick.result?.get() }
        #expect(slow.result == nil)
        peers.client.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(try answered.result?.get().status == 200)
        #expect(slow.result == nil)
        let later = try peers.request(timeout: .seconds(1))
        peers.interact()
        peers.client.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(throws: HTTP2StreamsHandler.StreamEnded.timedOut) { try later.result?.get() }
        #expect(slow.result == nil)
        peers.client.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(throws: HTTP2StreamsHandler.StreamEnded.timedOut) { try slow.result?.get() }
        peers.interact()
        #expect(peers.server.frames(on: 3).reset == nil, "the answered stream was not reset")
        #expect(peers.server.frames(on: 5).reset == .cancel)
        #expect(peers.server.frames(on: 1).reset == .cancel)
    }

    @Test(arguments: HTTP2Codec.allCases) func aResetStreamFailsWithItsCode(codec: HTTP2Codec) throws {
        let peers = try Peers(codec: codec)
        defer { peers.finish() }
        let answer = try peers.request()
        peers.interact()
        peers.server.write(HTTP2Frame(streamID: 1, payload: .rstStream(.refusedStream)))
        peers.interact()
        #expect(throws: HTTP2StreamsHandler.StreamEnded.reset(.refusedStream)) { try answer.result?.get() }
    }

    @Test(arguments: HTTP2Codec.allCases) func aBodyPastTheLimitResetsTheStream(codec: HTTP2Codec) throws {
        let peers = try Peers(codec: codec)
        defer { peers.finish() }
        let answer = try peers.request()
        peers.interact()
        // The body runs on past the limit without an end, so the server still has the stream
        // open when the reset reaches it.
        peers.server.write(HTTP2Frame(streamID: 1, payload: .headers(.init(headers: [":status": "200"]))))
        let tooMuch = ByteBuffer(repeating: 0, count: HTTP2StreamsHandler.maximumBodySize + 1)
        peers.server.write(HTTP2Frame(streamID: 1, payload: .data(.init(data: .byteBuffer(tooMuch)))))
        peers.interact()
        #expect(throws: HTTP2StreamsHandler.StreamEnded.bodyTooLarge) { try answer.result?.get() }
        #expect(peers.server.frames(on: 1).reset == .cancel)
    }

    @Test(arguments: HTTP2Codec.allCases) func closingTheConnectionFailsOpenStreamsAndLaterRequests(codec: HTTP2Codec) throws {
        let peers = try Peers(codec: codec)
        defer { peers.finish() }
        let open = try peers.request()
        peers.interact()
        peers.client.close(promise: nil)
        #expect(throws: HTTP2StreamsHandler.StreamEnded.closed) { try open.result?.get() }
        #expect(peers.state.isClosed)
        #expect(throws: HTTP2ConnectionError(.closed, "")) { try peers.request() }
    }

    @Test(arguments: HTTP2Codec.allCases) func anAnswerBeforeTheWholeBodyIsSentEndsTheStreamWithoutAReset(codec: HTTP2Codec) throws {
        let peers = try Peers(codec: codec)
        defer { peers.finish() }
        // More than the server's initial window: the rest waits for a WINDOW_UPDATE.
        let body = [UInt8](repeating: 0x2a, count: 70_000)
        let answer = try peers.request(body: body)
        peers.interact()
        #expect(peers.server.frames(on: 1).body.count == 65_535)
        peers.answer(1, status: 413)
        peers.interact()
        #expect(try answer.result?.get().status == 413)
        peers.server.write(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: 10_000)))
        peers.server.write(HTTP2Frame(streamID: 1, payload: .windowUpdate(windowSizeIncrement: 10_000)))
        peers.interact()
        let sent = peers.server.frames(on: 1)
        #expect(sent.reset == nil, "an answered stream is not reset")
        #expect(sent.body == body && sent.ended, "the rest of the body follows the answer")
    }

    @Test func aFieldNameWithUpperCaseOrPastASCIIResetsTheStream() throws {
        // NIOHPACK takes only ASCII names; NIOHTTP2's decoder checks them itself, libnghttp2's
        // (its HTTP messaging checks off) leaves that to the handler.
        for name in [Array("Apns-Id".utf8), [0x61, 0xAD, 0x62]] {
            let peers = try Peers(codec: .nghttp2)
            defer { peers.finish() }
            let answer = try peers.request()
            let other = try peers.request()
            peers.interact()
            // HEADERS (END_STREAM, END_HEADERS) on stream 1: `:status: 200` from the static
            // table, then the field as a literal never added to the table.
            let block: [UInt8] = [0x88, 0x00, UInt8(name.count)] + name + [0x01, 0x78]
            let frame: [UInt8] = [0, 0, UInt8(block.count), 0x01, 0x05, 0, 0, 0, 1] + block
            try peers.client.writeInbound(ByteBuffer(bytes: frame))
            peers.interact()
            #expect(throws: HTTP2StreamsHandler.StreamEnded.reset(.protocolError)) { try answer.result?.get() }
            #expect(peers.client.isActive, "the connection stays")
            peers.answer(3, status: 200)
            peers.interact()
            #expect(try other.result?.get().status == 200)
        }
    }

    @Test func aConnectionErrorIsTheCloseReason() throws {
        let peers = try Peers(codec: .nghttp2)
        defer { peers.finish() }
        let open = try peers.request()
        peers.interact()
        // WINDOW_UPDATE with an increment of 0 on the connection: a connection error.
        try peers.client.writeInbound(ByteBuffer(bytes: [0, 0, 4, 0x08, 0, 0, 0, 0, 0, 0, 0, 0, 0]))
        peers.interact()
        #expect(throws: HTTP2StreamsHandler.StreamEnded.closed) { try open.result?.get() }
        #expect(peers.state.isClosed)
        do {
            _ = try peers.request()
            Issue.record("a closed connection takes no request")
        } catch let error as HTTP2ConnectionError {
            #expect(error.message.contains("GOAWAY (PROTOCOL_ERROR)"), "\(error.message)")
            #expect(error.message.contains("WINDOW_UPDATE"), "\(error.message)")
        }
    }
}
