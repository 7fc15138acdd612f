import Crypto
import HTTPTypes
public import Foundation
public import HeraldCluster
import HeraldCore
public import HeraldStore
import Hummingbird

/// `/api/push` with an `Idempotency-Key` header (draft-ietf-httpapi-idempotency-key-header): the
/// first request with a key is delivered and its answer kept for the window; a repeat with the
/// same body gets the kept answer (marked `Idempotent-Replayed: true`) and pushes nothing again.
/// gorush has no such protection, and a client that resends after a timeout pushes twice.
///
/// In a cluster the key's partition owner keeps it: a request is forwarded there once, so
/// repeats through any node meet the same marker. An owner that dies takes its markers with it:
/// a repeat during failover is delivered again (at-least-once).
public struct GorushIdempotency: Sendable {
    static let header = HTTPField.Name("Idempotency-Key")!
    static let replayedHeader = HTTPField.Name("Idempotent-Replayed")!
    static let internalPath = "/internal/v1/gorush/push"
    /// How long a key stays claimed by a request still being delivered; a node that died
    /// meanwhile frees it then.
    static let claimLifetime: UInt64 = 300

    /// What the client gets: the answer of the request that used the key first.
    struct Answer: Sendable {
        var status: Int
        var body: [UInt8]
        var replayed: Bool
        /// The owner's `Retry-After`, for an answer relayed from it.
        var retryAfter: String? = nil
    }

    private enum State: UInt8 {
        case inProgress = 0
        case answered = 1
    }

    let markers: MessageMarkers
    let routing: PartitionRouting
    /// Where keys are kept, for the window.
    let namespace: MessageMarkers.Namespace
    let now: @Sendable () -> Date

    public init(markers: MessageMarkers, routing: PartitionRouting, window: Duration, now: @escaping @Sendable () -> Date = Date.init) {
        self.markers = markers
        self.routing = routing
        self.namespace = Self.namespace(window: window)
        self.now = now
    }

    /// Keys by their SHA-256, each with the answer given.
    static func namespace(window: Duration) -> MessageMarkers.Namespace {
        MessageMarkers.Namespace(3, name: "gorush-idempotency-key", ttl: window)
    }

    /// The key a request carries, unquoted (the draft sends it as a structured-field string,
    /// most clients bare); `nil` without one.
    static func key(in headers: HTTPFields) throws(GorushError) -> String? {
        guard let raw = headers[Self.header] else { return nil }
        var key = Substring(raw)
        if key.count >= 2, key.first == "\"", key.last == "\"" { key = key.dropFirst().dropLast() }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7e).contains($0) && $0 != UInt8(ascii: "\"") }) else {
            throw .invalidIdempotencyKey
        }
        return String(key)
    }

    /// Answers a request carrying `key`: forwarded to the key's owner in a cluster, replayed when
    /// the key was answered before, or delivered by `process` and kept. `forwardedFrom` is the
    /// node that forwarded it here (the internal API); such a request is answered here or
    /// refused as retryable.
    func answer(
        key: String,
        body: [UInt8],
        forwardedFrom: String?,
        process: () async throws -> (status: Int, body: [UInt8], keep: Bool)
    ) async throws -> Answer {
        let id = Array(SHA256.hash(data: Array(key.utf8)))
        return try await self.routing.atOwner(
            of: PartitionKey(bytes: id),
            forwardedFrom: forwardedFrom,
            refusingAs: GorushError.self,
            forwarding: { PartitionRouting.Forwarding(path: Self.internalPath, body: body, headers: [(name: Self.header.rawName, value: key)]) },
            relay: { answer in
                // The owner's own gorush answers are the client's; anything else (no such route
                // on an older node, a refused secret, a server error) means the cluster cannot
                // take the request now, which the client may send again.
                guard answer.status == 200 || [400, 409, 413, 422].contains(answer.status) else {
                    throw GorushError.unavailable("the Idempotency-Key's owner answered \(answer.status)")
                }
                let replayed = answer.headers.contains { $0.name.lowercased() == Self.replayedHeader.canonicalName && $0.value == "true" }
                let retryAfter = answer.headers.first { $0.name.lowercased() == "retry-after" }?.value
                return Answer(status: answer.status, body: answer.body, replayed: replayed, retryAfter: retryAfter)
            },
            here: { try await self.answerHere(id: id, body: body, process: process) }
        )
    }

    /// Answers as the key's owner: replays a kept answer, or delivers and keeps it.
    private func answerHere(id: [UInt8], body: [UInt8], process: () async throws -> (status: Int, body: [UInt8], keep: Bool)) async throws -> Answer {
        let fingerprint = Array(SHA256.hash(data: body))
        let now = self.unixSeconds
        let claimed = try await self.markers.insert(
            id,
            in: self.namespace,
            expiry: now + Self.claimLifetime,
            now: now,
            value: [State.inProgress.rawValue] + fingerprint
        )
        guard claimed else { return try self.replay(id, fingerprint: fingerprint, now: now) }

        let result: (status: Int, body: [UInt8], keep: Bool)
        do {
            result = try await process()
        } catch {
            // A refused request changed nothing: the key may be used again.
            try? await self.markers.remove(id, in: self.namespace)
            throw error
        }
        guard result.keep else {
            // Nothing was delivered and every failure may pass: a repeat must try again.
            try? await self.markers.remove(id, in: self.namespace)
            return Answer(status: result.status, body: result.body, replayed: false)
        }
        let status = UInt16(clamping: result.status)
        // Not kept (a full store): the claim lapses and a repeat is delivered again.
        try? await self.markers.replace(
            id,
            in: self.namespace,
            expiry: self.namespace.expiry(from: now),
            value: [State.answered.rawValue] + fingerprint + [UInt8(status >> 8), UInt8(status & 0xff)] + result.body
        )
        return Answer(status: result.status, body: result.body, replayed: false)
    }

    private func replay(_ id: [UInt8], fingerprint: [UInt8], now: UInt64) throws -> Answer {
        guard let stored = try self.markers.value(of: id, in: self.namespace, now: now), stored.count >= 33,
            let state = State(rawValue: stored[0])
        else {
            // Claimed and gone again in between (a refused request released it).
            throw GorushError.idempotencyKeyInUse
        }
        guard Array(stored[1..<33]) == fingerprint else { throw GorushError.idempotencyKeyReused }
        switch state {
        case .inProgress:
            throw GorushError.idempotencyKeyInUse
        case .answered:
            guard stored.count >= 35 else { throw GorushError.idempotencyKeyInUse }
            return Answer(status: Int(stored[33]) << 8 | Int(stored[34]), body: Array(stored[35...]), replayed: true)
        }
    }

    private var unixSeconds: UInt64 {
        let seconds = self.now().timeIntervalSince1970
        return seconds.isFinite && seconds > 0 ? UInt64(min(seconds, 4e18)) : 0
    }
}
