import NIOCore

/// The stream side of a provider connection's HTTP/2 codec, whichever library frames it: opens a
/// stream per request and keeps the connection alive. Lives on the connection's event loop.
protocol HTTP2StreamSending: AnyObject {
    /// Opens a stream and sends `headers` and `body` on it; `promise` gets the whole response,
    /// or fails with an `HTTP2StreamsHandler.StreamEnded`. Must run on the connection's loop.
    func send(headers: HTTP2Fields, body: [UInt8], timeout: TimeAmount?, promise: EventLoopPromise<HTTP2Response>)

    /// Sends a PING carrying `data`; its acknowledgement reaches the connection's driver.
    func ping(_ data: UInt64)
}
