import CoreMetrics
import HeraldFrontDoor
import Hummingbird
import HummingbirdCore
import NIOCore
import NIOSSL
import ServiceLifecycle

extension HeraldNode {
    /// The API port's connection cap: the configured one, or what the open-file limit leaves
    /// beside everything else the node holds (`herald serve` refused to start if that is too few).
    static func apiConnections(_ configuration: HeraldConfiguration) -> Int {
        DescriptorBudget(configuration: configuration).apiConnections(configured: configuration.server.maxConnections, openFiles: FileDescriptorLimit.current)
            ?? min(configuration.server.maxConnections, DescriptorBudget.minimumAPIConnections)
    }

    /// The listeners beside the API port, which the API application runs among its services.
    struct Listeners {
        /// Counts a request that ran out of time, on any listener, the API port's too.
        let requestTimeouts: @Sendable () -> Void
        /// With `server.operations-port`.
        let operations: ListenerService?
        /// The cluster's internal API, when the cluster has mutual TLS.
        let forwarded: ListenerService?
    }

    static func makeListeners(_ basis: Basis, routes: Routes, clusterTLS: ClusterTLS?) -> Listeners {
        let requestTimeoutCounter = Counter(label: "herald_http_request_timeouts_total", factory: basis.metrics)
        let requestTimeouts: @Sendable () -> Void = { requestTimeoutCounter.increment() }
        return Listeners(
            requestTimeouts: requestTimeouts,
            operations: Self.makeOperationsListener(basis, router: routes.operations, onTimeout: requestTimeouts),
            forwarded: Self.makeForwardedListener(basis, router: routes.forwarded, tls: clusterTLS, onTimeout: requestTimeouts)
        )
    }

    /// The API port's application. It runs every other service too, `services` in order, and on
    /// graceful shutdown stops its server before them.
    static func makeAPIApplication(
        _ basis: Basis,
        routes: Routes,
        listeners: Listeners,
        services: [any Service],
        onServerRunning: @escaping @Sendable (SocketAddress?) async -> Void
    ) -> Application<RouterResponder<HeraldRequestContext>> {
        let server = basis.configuration.server
        return Application(
            router: routes.api,
            server: Self.http1(server, direct: routes.direct, onTimeout: listeners.requestTimeouts),
            configuration: .init(
                address: .hostname(server.host, port: server.port),
                serverName: Self.apiServerName,
                backlog: 1024,
                availableConnectionsDelegate: MaximumAvailableConnections(Self.apiConnections(basis.configuration), logger: basis.logger)
            ),
            services: services,
            onServerRunning: { channel in await onServerRunning(channel.localAddress) },
            logger: basis.logger
        )
    }

    private static func makeOperationsListener(
        _ basis: Basis,
        router: Router<HeraldRequestContext>?,
        onTimeout: @escaping @Sendable () -> Void
    ) -> ListenerService? {
        let server = basis.configuration.server
        guard let router, let port = server.operationsPort else { return nil }
        let application = Application(
            router: router,
            server: Self.http1(server, onTimeout: onTimeout),
            configuration: .init(
                address: .hostname(server.host, port: port),
                serverName: "herald-operations",
                availableConnectionsDelegate: MaximumAvailableConnections(DescriptorBudget.operationsConnections, logger: basis.logger)
            ),
            logger: basis.logger
        )
        return ListenerService(listener: application, keys: "server.host and server.operations-port", address: "\(server.host):\(port)")
    }

    /// Only other nodes connect here, holding a certificate of the cluster's CA.
    private static func makeForwardedListener(
        _ basis: Basis,
        router: Router<HeraldRequestContext>?,
        tls: ClusterTLS?,
        onTimeout: @escaping @Sendable () -> Void
    ) -> ListenerService? {
        guard let router, let tls else { return nil }
        let server = basis.configuration.server
        let port = basis.configuration.cluster.internalPort
        let application = Application(
            router: router,
            server: Self.http1(server, tls: tls.server, onTimeout: onTimeout),
            configuration: .init(
                address: .hostname(server.host, port: port),
                serverName: "herald-internal",
                availableConnectionsDelegate: MaximumAvailableConnections(DescriptorBudget.internalConnections, logger: basis.logger)
            ),
            logger: basis.logger
        )
        return ListenerService(listener: application, keys: "server.host and cluster.internal-port", address: "\(server.host):\(port)")
    }

    /// The API port's `Server` header, on the router's answers and the pipeline's.
    static var apiServerName: String { "herald" }

    /// Every listener speaks HTTP/1.1 under the same timeouts.
    private static func http1(
        _ server: HeraldConfiguration.Server,
        tls: TLSConfiguration? = nil,
        direct: DirectRouting? = nil,
        onTimeout: @escaping @Sendable () -> Void
    ) -> HTTPServerBuilder {
        .heraldHTTP1(idleTimeout: server.idleTimeout, requestTimeout: server.requestTimeout, tls: tls, direct: direct, onTimeout: onTimeout)
    }
}
