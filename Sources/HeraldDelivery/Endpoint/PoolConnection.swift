import NIOCore

/// What the pool's state machine reads of a connection to choose one: whether it takes requests,
/// how busy it is, and its event loop. `HTTP2Connection` is one; the machine's tests use plain
/// values.
protocol PoolConnection: AnyObject, Sendable {
    var isUsable: Bool { get }
    var openStreams: Int { get }
    var maxConcurrentStreams: Int { get }
    /// The event loop it runs on, so the pool spreads connections over loops.
    var loopID: ObjectIdentifier { get }
}

extension HTTP2Connection: PoolConnection {
    var loopID: ObjectIdentifier { ObjectIdentifier(self.eventLoop) }
}
