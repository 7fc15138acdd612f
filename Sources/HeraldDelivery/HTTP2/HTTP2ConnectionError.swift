public import HeraldCore
import NIOHTTP2

/// Why a request on an HTTP/2 connection did not get an answer. All of these are about the
/// connection, not the request: the request may be sent again on another connection.
public struct HTTP2ConnectionError: CodedError {
    public enum Code: String, Sendable {
        /// The connection is closed.
        case closed = "http2.closed"
        /// The peer sent GOAWAY: no new streams on this connection.
        case goingAway = "http2.going_away"
        /// The stream was reset by the peer (e.g. REFUSED_STREAM) or dropped by a GOAWAY.
        case streamReset = "http2.stream_reset"
        /// TLS, ALPN or the HTTP/2 preface failed while connecting.
        case connectFailed = "http2.connect_failed"
        /// No answer within the request's deadline.
        case timedOut = "http2.timed_out"
    }

    public let code: Code
    public let message: String
    /// For GOAWAY: the reason in the debug data, when the peer gave one.
    public let peerReason: String?

    public init(_ code: Code, _ message: String, peerReason: String? = nil) {
        self.code = code
        self.message = message
        self.peerReason = peerReason
    }


}
