public import NIOCore

/// Herald's client side of an HTTP/2 connection on a channel without a socket or TLS: the
/// handlers `HTTP2Connection` adds, and requests sent as `HTTP2Connection.send` sends them once
/// it holds a stream permit. For the fuzz target that plays a provider's bytes into it
/// (Fuzz/FuzzHTTP2); SPI, so it is no part of the library's API.
@_spi(Fuzzing)
public struct HTTP2ClientPipeline {
    let state: HTTP2ConnectionDriver
    let streams: any HTTP2StreamSending

    /// Adds `codec`'s handlers to `channel`'s pipeline. Must run on the channel's event loop.
    public init(channel: any Channel, codec: HTTP2Codec = .nio) throws {
        let state = HTTP2ConnectionDriver(eventLoop: channel.eventLoop)
        self.state = state
        self.streams = try codec.addHandlers(to: channel, state: state)
        state.channelCreated { channel.eventLoop.execute { channel.close(promise: nil) } }
    }

    /// Opens a stream for one request; `promise` gets the whole answer. `false`, and the promise
    /// untouched, when the peer's stream limit or a GOAWAY leaves no permit.
    public func send(headers: HTTP2Fields, body: [UInt8], timeout: TimeAmount?, promise: EventLoopPromise<HTTP2Response>) -> Bool {
        guard (try? self.state.acquireWithoutWaiting()) == true else { return false }
        let state = self.state
        self.streams.send(HTTP2Connection.Request(headers: headers, body: body, deadline: nil), timeout: timeout) { result in
            state.release()
            promise.completeWith(result.mapError { $0 })
        }
        return true
    }
}

@available(*, unavailable)
extension HTTP2ClientPipeline: Sendable {}
