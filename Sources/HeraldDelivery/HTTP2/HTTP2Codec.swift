import NIOCore

/// Which library frames a provider connection's HTTP/2: SwiftNIO's (`NIOHTTP2Handler` in frame
/// mode) or libnghttp2's `nghttp2_session`, driven from memory buffers behind TLS. Both answer
/// requests the same way; issue 30 measures what each costs per notification.
public enum HTTP2Codec: String, Sendable, CaseIterable {
    case nio
    case nghttp2

    /// Adds the codec's handlers behind TLS (or, in tests, behind nothing) and returns the one
    /// that sends requests. Must run on the channel's event loop.
    func addHandlers(to channel: any Channel, state: HTTP2ConnectionDriver) throws -> any HTTP2StreamSending {
        switch self {
        case .nio:
            return try HTTP2Connection.addHTTP2Handlers(to: channel, state: state)
        case .nghttp2:
            let handler = NGHTTP2ClientHandler(state: state)
            try channel.pipeline.syncOperations.addHandler(handler)
            return handler
        }
    }
}
