import AsyncHTTPClient
import Foundation
import HeraldCore
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
public import NIOSSL

/// Where a write for a partition is made: on this node when it owns the partition, else on the
/// owner, to which the request is forwarded once over the internal API. Decisions read the
/// membership snapshot without waiting; a request forwarded here for a partition this node does
/// not own is refused, not forwarded again, so two nodes that disagree about ownership (during a
/// membership change) give the caller a retryable failure instead of a loop.
public final class ClusterForwarder: Sendable {
    public enum Decision: Sendable, Hashable {
        /// This node owns the partition: handle it here.
        case local
        /// Forward it once to this member.
        case forward(ClusterMember)
        /// No node can take it now (no owner known, or a forwarded request that is not ours).
        case unavailable(String)
    }

    /// Header that marks a forwarded request; its value is the forwarding node's id.
    public static let forwardedHeader = "X-Herald-Forwarded-From"

    public let membership: Membership
    private let secret: String
    private let http: HTTPClient
    private let requestTimeout: Duration

    /// `tls` is the client side of mutual TLS between nodes, when the cluster uses it.
    public init(membership: Membership, secret: String, requestTimeout: Duration = .seconds(10), tls: TLSConfiguration? = nil) {
        self.membership = membership
        self.secret = secret
        self.requestTimeout = requestTimeout
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = .seconds(1)
        configuration.tlsConfiguration = tls
        self.http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public var nodeID: String { self.membership.configuration.nodeID }

    /// How many partitions the log has.
    public var partitions: Int { self.membership.configuration.partitions }

    /// The partition `key` falls in.
    public func partition(of key: PartitionKey) -> Int {
        key.partition(of: self.partitions)
    }

    public func decide(partition: Int, forwardedFrom: String?) -> Decision {
        let snapshot = self.membership.snapshot
        guard let owner = snapshot.map.owner(of: partition) else {
            return .unavailable("no live member owns partition \(partition) yet")
        }
        if owner == self.nodeID { return .local }
        if let forwardedFrom {
            return .unavailable("\(forwardedFrom) forwarded partition \(partition) here, but \(owner) owns it")
        }
        guard let member = snapshot.members.first(where: { $0.id == owner }) else {
            return .unavailable("partition \(partition)'s owner \(owner) is not a live member")
        }
        return .forward(member)
    }

    /// The owner's answer to a forwarded request, whatever its status.
    public struct Answer: Sendable {
        public var status: Int
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]
    }

    /// POSTs `body` to `path` on `member` with the cluster secret and `headers`, and returns
    /// the answer as it is; `PartitionRouting` decides what it means. Throws only when no answer
    /// came.
    func send(
        _ body: [UInt8],
        path: String,
        to member: ClusterMember,
        contentType: String = "application/json",
        headers: [(name: String, value: String)] = []
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: member.url + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: contentType)
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        request.headers.add(name: "Authorization", value: "Bearer \(self.secret)")
        request.headers.add(name: Self.forwardedHeader, value: self.nodeID)
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await self.http.execute(request, timeout: .init(self.requestTimeout))
        let answer = try await response.body.collect(upTo: 16 << 20)
        return Answer(
            status: Int(response.status.code),
            headers: response.headers.map { (name: $0.name, value: $0.value) },
            body: Array(buffer: answer)
        )
    }

    public func shutdown() async throws {
        try await self.http.shutdown()
    }

    /// Shuts down without waiting, for a start-up that failed after the forwarder was made.
    public func shutdownInBackground() {
        self.http.shutdown { _ in }
    }
}
