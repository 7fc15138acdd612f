/// The one way a front door reaches a partition's owner: runs the work here when this node owns
/// the key (always, when it runs alone), else forwards the request once to the owner over the
/// internal API and turns its answer into the caller's result. A request another node forwarded
/// here is never forwarded again: when this node is not its owner (two nodes disagreeing during a
/// membership change) it fails as retryable instead of looping.
public struct PartitionRouting: Sendable {
    /// `nil` when the node runs alone.
    public let forwarder: ClusterForwarder?

    public init(forwarder: ClusterForwarder?) {
        self.forwarder = forwarder
    }

    /// Whether the node runs in a cluster, where work may belong to another node.
    public var isClustered: Bool { self.forwarder != nil }

    /// A node running alone owns every key.
    public static let alone = PartitionRouting(forwarder: nil)

    /// What the owner is sent when the request is forwarded.
    public struct Forwarding: Sendable {
        public var path: String
        public var body: [UInt8]
        public var contentType: String
        public var headers: [(name: String, value: String)]

        public init(path: String, body: [UInt8], contentType: String = "application/json", headers: [(name: String, value: String)] = []) {
            self.path = path
            self.body = body
            self.contentType = contentType
            self.headers = headers
        }
    }

    /// Runs `here` when this node owns `key`; else sends `forwarding()` to the owner and gives its
    /// answer, whatever its status, to `relay`. Every failure to route — no owner known, a
    /// forwarded request this node does not own, an owner that did not answer — is thrown as
    /// `Failure.ownerUnavailable`. `forwardedFrom` is the node that forwarded the request here,
    /// `nil` for a client's.
    public func atOwner<Result, Failure: OwnerUnavailableError>(
        of key: PartitionKey,
        forwardedFrom: String?,
        forwarding: () -> Forwarding,
        relay: (ClusterForwarder.Answer) throws(Failure) -> Result,
        here: () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        try await self.route(key, forwardedFrom: forwardedFrom, unavailable: Failure.ownerUnavailable, forwarding: forwarding, relay: relay, here: here)
    }

    /// `atOwner` for work that throws more than one kind of error; routing failures are still
    /// `Refusal.ownerUnavailable`.
    public func atOwner<Result, Refusal: OwnerUnavailableError>(
        of key: PartitionKey,
        forwardedFrom: String?,
        refusingAs: Refusal.Type,
        forwarding: () -> Forwarding,
        relay: (ClusterForwarder.Answer) throws -> Result,
        here: () async throws -> Result
    ) async throws -> Result {
        try await self.route(key, forwardedFrom: forwardedFrom, unavailable: { Refusal.ownerUnavailable($0) }, forwarding: forwarding, relay: relay, here: here)
    }

    private func route<Result, Failure: Error>(
        _ key: PartitionKey,
        forwardedFrom: String?,
        unavailable: (String) -> Failure,
        forwarding: () -> Forwarding,
        relay: (ClusterForwarder.Answer) throws(Failure) -> Result,
        here: () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        guard let forwarder = self.forwarder else { return try await here() }
        switch forwarder.decide(partition: forwarder.partition(of: key), forwardedFrom: forwardedFrom) {
        case .local:
            return try await here()
        case .unavailable(let reason):
            throw unavailable(reason)
        case .forward(let owner):
            let request = forwarding()
            let answer: ClusterForwarder.Answer
            do {
                answer = try await forwarder.send(request.body, path: request.path, to: owner, contentType: request.contentType, headers: request.headers)
            } catch {
                throw unavailable("the owner \(owner.id) did not answer: \(error)")
            }
            return try relay(answer)
        }
    }

    /// Whether this node may handle a request for `key` that `forwardedFrom` forwarded here;
    /// throws `ownerUnavailable` when it is not the key's owner. For internal routes that take
    /// work already routed once.
    public func checkOwned<Failure: OwnerUnavailableError>(_ key: PartitionKey, forwardedFrom: String?, as failure: Failure.Type = Failure.self) throws(Failure) {
        guard let forwarder = self.forwarder else { return }
        switch forwarder.decide(partition: forwarder.partition(of: key), forwardedFrom: forwardedFrom) {
        case .local: return
        case .unavailable(let reason): throw .ownerUnavailable(reason)
        case .forward(let owner): throw .ownerUnavailable("\(owner.id) owns it")
        }
    }
}
