import AsyncHTTPClient
import Foundation
public import NIOCore
import NIOFoundationCompat
import NIOHTTP1
public import NIOPosix
import Synchronization

/// A client of etcd v3's JSON gateway (etcd.md §1b) over AsyncHTTPClient: KV, transactions,
/// leases and watches against a list of members, moving to the next member when one cannot be
/// reached. Every call carries `hasleader`, so a member without quorum answers at once instead of
/// after etcd's 7 s request timeout, and a watch on it is cancelled instead of going silent.
///
/// The gateway rather than gRPC: Herald already links AsyncHTTPClient, the gateway needs no
/// generated stubs or plugin, and each node needs only unary calls plus one watch stream, which
/// a chunked HTTP/1.1 response carries.
public final class EtcdClient: Sendable {
    public struct Configuration: Sendable {
        /// Client URLs of the members, e.g. `http://127.0.0.1:2379`.
        public var endpoints: [String]
        /// How long one unary call may take.
        public var requestTimeout: Duration = .seconds(5)
        /// How long connecting to one member may take before the next is tried.
        public var connectTimeout: Duration = .seconds(1)

        public init(endpoints: [String]) {
            self.endpoints = endpoints
        }
    }

    public let configuration: Configuration
    let http: HTTPClient
    /// The member that answered last; calls start there.
    private let preferred = Atomic<Int>(0)

    public init(configuration: Configuration, eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.configuration = configuration
        var http = HTTPClient.Configuration()
        http.timeout.connect = .init(configuration.connectTimeout)
        http.connectionPool.idleTimeout = .seconds(30)
        self.http = HTTPClient(eventLoopGroupProvider: .shared(eventLoopGroup), configuration: http)
    }

    public func shutdown() async throws {
        try await self.http.shutdown()
    }

    /// Shuts down without waiting, for a start-up that failed after the client was made (where
    /// there is no task to await in).
    public func shutdownInBackground() {
        self.http.shutdown { _ in }
    }

    // MARK: Calls

    /// POSTs `body` to `path` on the preferred member, then the others when it cannot be reached.
    /// A write whose request may have reached a member is not sent again: its failure says
    /// `mayHaveCommitted`.
    func call<Request: Encodable, Response: Decodable>(
        _ path: String,
        _ body: Request,
        as type: Response.Type,
        isWrite: Bool
    ) async throws -> Response {
        let payload = try JSONEncoder().encode(body)
        var lastError: EtcdError?
        for endpoint in self.endpointsInOrder() {
            var request = HTTPClientRequest(url: endpoint.url + path)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "Grpc-Metadata-Hasleader", value: "true")
            request.body = .bytes(ByteBuffer(data: payload))
            let response: HTTPClientResponse
            let bytes: ByteBuffer
            do {
                response = try await self.http.execute(request, timeout: .init(self.configuration.requestTimeout))
                bytes = try await response.body.collect(upTo: 64 << 20)
            } catch {
                // A member that did not answer (stopped, stalled, cut off) is not tried first
                // again; a read goes on to the next member at once.
                self.moveOn(from: endpoint.index)
                if Self.notSent(error) || !isWrite {
                    lastError = EtcdError(.unavailable, "\(endpoint.url)\(path): \(error)")
                    continue
                }
                throw EtcdError(.unavailable, "\(endpoint.url)\(path): \(error)", mayHaveCommitted: true)
            }
            guard response.status == .ok else {
                let failure = Self.error(status: response.status, body: bytes, isWrite: isWrite, endpoint: endpoint.url + path)
                if failure.code == .unavailable, !failure.mayHaveCommitted {
                    lastError = failure
                    continue
                }
                throw failure
            }
            self.preferred.store(endpoint.index, ordering: .relaxed)
            do {
                return try JSONDecoder().decode(Response.self, from: Data(buffer: bytes))
            } catch {
                throw EtcdError(.malformedResponse, "\(endpoint.url)\(path): \(error)")
            }
        }
        throw lastError ?? EtcdError(.unavailable, "no etcd endpoint configured")
    }

    func endpointsInOrder() -> [(index: Int, url: String)] {
        let endpoints = self.configuration.endpoints
        guard !endpoints.isEmpty else { return [] }
        let first = self.preferred.load(ordering: .relaxed) % endpoints.count
        return (0..<endpoints.count).map { offset in
            let index = (first + offset) % endpoints.count
            return (index, endpoints[index])
        }
    }

    func moveOn(from index: Int) {
        _ = self.preferred.compareExchange(expected: index, desired: index + 1, ordering: .relaxed)
    }

    /// The request never left: the member refused or did not accept the connection.
    static func notSent(_ error: any Error) -> Bool {
        if error is NIOConnectionError { return true }
        if let error = error as? IOError, [ECONNREFUSED, ENETUNREACH, EHOSTUNREACH].contains(error.errnoCode) { return true }
        if let error = error as? ChannelError, case .connectTimeout = error { return true }
        if let error = error as? HTTPClientError, error == .connectTimeout { return true }
        return false
    }

    /// Maps etcd's error body (gRPC code, message) to what the caller can do.
    static func error(status: HTTPResponseStatus, body: ByteBuffer, isWrite: Bool, endpoint: String) -> EtcdError {
        let wire = try? JSONDecoder().decode(EtcdWire.ErrorBody.self, from: Data(buffer: body))
        let message = wire?.message ?? wire?.error ?? String(buffer: body)
        let text = "\(endpoint): HTTP \(status.code): \(message)"
        switch wire?.code {
        case 11 where message.contains("compacted"): return EtcdError(.compacted, text)
        case 11 where message.contains("future revision"): return EtcdError(.futureRevision, text)
        case 5: return EtcdError(.leaseNotFound, text)
        case 8: return EtcdError(.noSpace, text)
        case 14 where message.contains("no leader"):
            // Refused before the request was proposed: nothing was written.
            return EtcdError(.unavailable, text)
        case 2, 4, 14:
            return EtcdError(.unavailable, text, mayHaveCommitted: isWrite)
        default:
            if status == .serviceUnavailable || status == .gatewayTimeout { return EtcdError(.unavailable, text, mayHaveCommitted: isWrite) }
            return EtcdError(.refused, text)
        }
    }
}
