import NIOCore
import NIOHTTP1

/// One connection's request deadline and keep-alive wishes, shared by its two handlers. Both run
/// on the connection's event loop, the only place this state is touched.
final class RequestDeadline {
    let timeout: TimeAmount
    let onTimeout: @Sendable () -> Void
    /// When the request being read must have arrived; `nil` while none is.
    private var deadline: NIODeadline?
    /// One timer a connection, not one a request: when it fires early (the request it was set
    /// for ended and another began) it is set again for the current deadline.
    private var timer: Scheduled<Void>?
    /// Whether each request read and not yet answered asked to keep the connection, in order.
    private var keepAlive: [Bool] = []
    /// A request's head has been read and its end not yet.
    private var reading = false

    init(timeout: TimeAmount, onTimeout: @escaping @Sendable () -> Void) {
        self.timeout = timeout
        self.onTimeout = onTimeout
    }

    /// From a request's first byte: a slowloris client dripping a header or a body gets no more
    /// than `timeout`. While an earlier request awaits its answer, a pipelined one waits for the
    /// server, not the other way round, so its clock starts once that answer is written.
    func start(_ context: ChannelHandlerContext) {
        guard self.deadline == nil, self.keepAlive.isEmpty else { return }
        let deadline = NIODeadline.now() + self.timeout
        self.deadline = deadline
        if self.timer == nil { self.arm(at: deadline, context) }
    }

    private func arm(at deadline: NIODeadline, _ context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        self.timer = context.eventLoop.scheduleTask(deadline: deadline) {
            let (owner, context) = loopBound.value
            owner.timer = nil
            guard let current = owner.deadline else { return }
            if current <= .now() {
                owner.onTimeout()
                context.close(promise: nil)
            } else {
                owner.arm(at: current, context)
            }
        }
    }

    func requestEnded() {
        self.reading = false
        self.deadline = nil
    }

    func cancel() {
        self.requestEnded()
        self.timer?.cancel()
        self.timer = nil
        self.keepAlive.removeAll()
    }

    /// Called before the head is counted, so the clock of a request that began with no other
    /// pending starts here at the latest.
    func read(_ head: HTTPRequestHead, _ context: ChannelHandlerContext) {
        self.start(context)
        self.keepAlive.append(head.isKeepAlive)
        self.reading = true
    }

    /// Whether the answer now being written is the last on the connection.
    var closesAfterAnswer: Bool { self.keepAlive.first == false }

    func answered(_ context: ChannelHandlerContext) {
        if !self.keepAlive.isEmpty { self.keepAlive.removeFirst() }
        // A pipelined request still arriving now waits on its sender alone.
        if self.reading { self.start(context) }
    }
}

extension RequestDeadline {
    /// First in the pipeline: bytes of a new request start the clock. Empty lines between
    /// requests, which RFC 9112 §2.2 says to ignore, do not.
    final class ByteWatcher: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        let deadline: RequestDeadline

        init(deadline: RequestDeadline) { self.deadline = deadline }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = self.unwrapInboundIn(data).readableBytesView
            if bytes.contains(where: { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }) { self.deadline.start(context) }
            context.fireChannelRead(data)
        }

        func channelInactive(context: ChannelHandlerContext) {
            self.deadline.cancel()
            context.fireChannelInactive()
        }
    }

    /// After the decoder: a request's end stops the clock; an answer to a request that did not
    /// ask for keep-alive says `Connection: close` and closes once written.
    final class PartWatcher: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias InboundOut = HTTPServerRequestPart
        typealias OutboundIn = HTTPServerResponsePart
        typealias OutboundOut = HTTPServerResponsePart
        let deadline: RequestDeadline

        init(deadline: RequestDeadline) { self.deadline = deadline }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch self.unwrapInboundIn(data) {
            case .head(let head):
                self.deadline.read(head, context)
            case .body: break
            case .end: self.deadline.requestEnded()
            }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            switch self.unwrapOutboundIn(data) {
            case .head(var head) where self.deadline.closesAfterAnswer && head.status.code >= 200:
                head.headers.replaceOrAdd(name: "connection", value: "close")
                context.write(self.wrapOutboundOut(.head(head)), promise: promise)
            case .end where self.deadline.closesAfterAnswer:
                self.deadline.answered(context)
                let written = promise ?? context.eventLoop.makePromise()
                let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
                written.futureResult.whenComplete { _ in loopBound.value.close(promise: nil) }
                context.write(data, promise: written)
            case .end:
                self.deadline.answered(context)
                context.write(data, promise: promise)
            default:
                context.write(data, promise: promise)
            }
        }
    }
}

// Handlers live on their connection's event loop.
@available(*, unavailable)
extension RequestDeadline.ByteWatcher: Sendable {}

@available(*, unavailable)
extension RequestDeadline.PartWatcher: Sendable {}
