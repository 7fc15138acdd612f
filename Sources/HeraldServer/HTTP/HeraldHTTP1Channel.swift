import HeraldDelivery
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL

extension HTTPServerBuilder {
    /// Hummingbird's HTTP/1.1 channel with the connection rules Hummingbird leaves out: a whole
    /// request must arrive within `requestTimeout` of its first byte, and a request that does not
    /// ask to keep the connection (HTTP/1.0 without `keep-alive`, or `Connection: close`) has it
    /// closed after its answer.
    /// With `tls`, behind TLS (the cluster's mutual-TLS listener); with `direct`, some routes are
    /// answered from the pipeline (`DirectRoute`).
    static func heraldHTTP1(
        idleTimeout: Duration,
        requestTimeout: Duration,
        tls: TLSConfiguration? = nil,
        direct: DirectRouting? = nil,
        onTimeout: @escaping @Sendable () -> Void = {}
    ) -> HTTPServerBuilder {
        .init { responder in
            let channel = HeraldHTTP1Channel(
                inner: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: TimeAmount(idleTimeout))),
                requestTimeout: TimeAmount(requestTimeout),
                direct: direct,
                onTimeout: onTimeout
            )
            guard let tls else { return channel }
            return try TLSChannel(channel, tlsConfiguration: tls)
        }
    }
}

struct HeraldHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value

    let inner: HTTP1Channel
    let requestTimeout: TimeAmount
    let direct: DirectRouting?
    let onTimeout: @Sendable () -> Void

    var responder: HTTPChannelHandler.Responder { self.inner.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        self.inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            // Beside Hummingbird's decoder: the first sees bytes, the second the decoded parts,
            // both before Hummingbird turns NIO's HTTP/1 types (which carry the version) into
            // version-less HTTP types.
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            let deadline = RequestDeadline(timeout: self.requestTimeout, onTimeout: self.onTimeout)
            try operations.addHandler(RequestDeadline.ByteWatcher(deadline: deadline), position: .first)
            try operations.addHandler(RequestDeadline.PartWatcher(deadline: deadline), position: .after(decoder))
            if let direct = self.direct, !direct.routes.isEmpty {
                let state = try operations.handler(type: HTTPConnectionStateHandler.self)
                try operations.addHandler(DirectRouteHandler(routing: direct), position: .after(state))
            }
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await self.inner.handle(value: value, logger: logger)
        }
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        self = .nanoseconds(Int64(duration / .nanoseconds(1)))
    }
}
