import NIOCore

/// The stream side of a provider connection's HTTP/2 codec, whichever library frames it: opens a
/// stream per request and keeps the connection alive. Lives on the connection's event loop.
protocol HTTP2StreamSending: AnyObject {
    /// Where a stream's answer goes, once, on the connection's event loop: the whole response,
    /// or how the stream ended without one. A closure, not a promise: a push's answer passes
    /// through no future of its own.
    typealias Answer = @Sendable (Result<HTTP2Response, HTTP2StreamsHandler.StreamEnded>) -> Void

    /// Opens a stream and sends `request` on it; `answer` gets the whole response, or how the
    /// stream ended. Must run on the connection's loop.
    func send(_ request: HTTP2Connection.Request, timeout: TimeAmount?, answer: @escaping Answer)

    /// Sends a PING carrying `data`; its acknowledgement reaches the connection's driver.
    func ping(_ data: UInt64)
}
