import FuzzSupport
@_spi(Fuzzing) import HeraldDelivery
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2

// A provider's bytes played into Herald's client side of an HTTP/2 connection, with each codec
// in turn (NIOHTTP2 in frame mode with the connection observer and the streams handler; then
// libnghttp2's session), on an EmbeddedChannel, after the
// server's SETTINGS and one to four requests. The first byte sets the number of requests (bits
// 0–1) and how the rest is cut into reads (bits 2–7: that many bytes a read, 0 for one read);
// the rest is what the server sends. Time then passes the requests' deadline and the connection
// closes. Nothing may trap, every request must end, and every complete answer is read as APNs
// and FCM answers are.

enum Fixture {
    static let requestHeaders: HTTP2Fields = [
        ":method": "POST", ":scheme": "https", ":authority": "api.push.apple.com", ":path": "/3/device/a1",
    ]
    /// The server's side of the preface: an empty SETTINGS frame, then the ACK of the client's.
    static let serverPreface: [UInt8] = [0, 0, 0, 4, 0, 0, 0, 0, 0] + [0, 0, 0, 4, 1, 0, 0, 0, 0]
    static let deadline = TimeAmount.seconds(5)
}

/// A request's end, once it has one.
final class Answer {
    var result: Result<HTTP2Response, any Error>?
}

/// Discards what the client wrote: the server here answers blind.
func discardOutbound(_ channel: EmbeddedChannel) {
    channel.embeddedEventLoop.run()
    while (try? channel.readOutbound(as: IOData.self)) != nil {}
}

runFuzzer { buffer in
    for codec in HTTP2Codec.allCases {
        play(buffer, codec: codec)
    }
}

func play(_ buffer: UnsafeRawBufferPointer, codec: HTTP2Codec) {
    var input = FuzzInput(buffer)
    let control = input.byte()
    let channel = EmbeddedChannel()
    guard let pipeline = try? HTTP2ClientPipeline(channel: channel, codec: codec),
        (try? channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()) != nil
    else {
        require(false, "the client pipeline did not start")
        return
    }
    discardOutbound(channel)
    _ = try? channel.writeInbound(ByteBuffer(bytes: Fixture.serverPreface))
    discardOutbound(channel)

    var answers: [Answer] = []
    for index in 0...Int(control & 3) {
        let promise = channel.eventLoop.makePromise(of: HTTP2Response.self)
        let answer = Answer()
        promise.futureResult.assumeIsolated().whenComplete { answer.result = $0 }
        if pipeline.send(headers: Fixture.requestHeaders, body: [UInt8(index)], timeout: Fixture.deadline, promise: promise) {
            answers.append(answer)
        } else {
            promise.fail(ChannelError.ioOnClosedChannel)
        }
    }
    discardOutbound(channel)

    let bytes = input.rest()
    let readSize = control >> 2 == 0 ? max(bytes.count, 1) : Int(control >> 2)
    for start in stride(from: 0, to: bytes.count, by: readSize) where channel.isActive {
        _ = try? channel.writeInbound(ByteBuffer(bytes: bytes[start..<min(start + readSize, bytes.count)]))
        discardOutbound(channel)
    }
    channel.embeddedEventLoop.advanceTime(by: Fixture.deadline + .seconds(1))
    discardOutbound(channel)
    _ = try? channel.finish(acceptAlreadyClosed: true)
    channel.embeddedEventLoop.run()

    for answer in answers {
        guard let result = answer.result else {
            require(false, "a request had no end after its deadline and the connection's close")
            return
        }
        if case .success(let response) = result {
            _ = APNSResponse(response).decision
            _ = FCMResponse(response).decision
        }
    }
}
