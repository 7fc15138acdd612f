import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Synchronization

extension EtcdClient {
    /// Every change under `prefix` from `revision` on, in revision order, as etcd sends them
    /// (the events of one transaction always in one batch), plus progress reports when the
    /// members run with `--experimental-watch-progress-notify-interval`.
    ///
    /// The stream ends with an error when the member loses quorum (`hasleader`), the connection
    /// drops, nothing at all arrives within `silenceLimit` (a frozen member sends nothing), or
    /// `revision` is compacted away (`EtcdError.compacted`). The caller starts a new watch from
    /// the revision after the last it handled; the next member is tried first.
    public func watch(
        prefix: [UInt8],
        from revision: Int64,
        includeDeletes: Bool = false,
        silenceLimit: Duration? = nil
    ) -> AsyncThrowingStream<EtcdWatchBatch, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: EtcdWatchBatch.self)
        let task = Task {
            do {
                try await self.watch(prefix: prefix, from: revision, includeDeletes: includeDeletes, silenceLimit: silenceLimit) { batch in
                    continuation.yield(batch)
                }
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The same watch, handing each batch to `handle` before reading the next: a consumer that
    /// falls behind holds the stream (and etcd) back instead of letting batches pile up in
    /// memory. Never returns normally; it throws when the watch ends, as the stream does. Time
    /// spent in `handle` counts as silence, so hold no batch near `silenceLimit`.
    public func watch(
        prefix: [UInt8],
        from revision: Int64,
        includeDeletes: Bool = false,
        silenceLimit: Duration? = nil,
        handle: @escaping @Sendable (EtcdWatchBatch) async throws -> Void
    ) async throws {
        let create = EtcdWire.WatchRequest(
            create_request: .init(
                key: .init(prefix),
                range_end: .init(EtcdKey.prefixEnd(prefix)),
                start_revision: .init(max(revision, 1)),
                progress_notify: true,
                filters: includeDeletes ? nil : ["NODELETE"]
            )
        )
        try await self.runWatch(create, silenceLimit: silenceLimit, handle: handle)
        throw EtcdError(.unavailable, "the watch stream ended")
    }

    private func runWatch(
        _ create: EtcdWire.WatchRequest,
        silenceLimit: Duration?,
        handle: @escaping @Sendable (EtcdWatchBatch) async throws -> Void
    ) async throws {
        let payload = try JSONEncoder().encode(create)
        var lastError: (any Error)?
        for endpoint in self.endpointsInOrder() {
            var request = HTTPClientRequest(url: endpoint.url + "/v3/watch")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "Grpc-Metadata-Hasleader", value: "true")
            request.body = .bytes(ByteBuffer(data: payload))
            let response: HTTPClientResponse
            do {
                // The deadline covers the answer's head only; the body streams for as long as
                // the watch lives.
                response = try await self.http.execute(request, timeout: .init(self.configuration.requestTimeout))
            } catch {
                if Self.notSent(error) {
                    lastError = EtcdError(.unavailable, "\(endpoint.url): \(error)")
                    continue
                }
                throw EtcdError(.unavailable, "\(endpoint.url)/v3/watch: \(error)")
            }
            guard response.status == .ok else {
                let body = (try? await response.body.collect(upTo: 1 << 20)) ?? ByteBuffer()
                throw Self.error(status: response.status, body: body, isWrite: false, endpoint: endpoint.url + "/v3/watch")
            }
            // The next watch starts on another member: this one may be the problem.
            self.moveOn(from: endpoint.index)
            try await Self.readWatch(response.body, silenceLimit: silenceLimit, handle: handle)
            return
        }
        throw lastError ?? EtcdError(.unavailable, "no etcd endpoint configured")
    }

    private static func readWatch(
        _ body: HTTPClientResponse.Body,
        silenceLimit: Duration?,
        handle: @escaping @Sendable (EtcdWatchBatch) async throws -> Void
    ) async throws {
        let lastHeard = Heartbeat()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var pending = ByteBuffer()
                for try await chunk in body {
                    lastHeard.beat()
                    var chunk = chunk
                    pending.writeBuffer(&chunk)
                    while let newline = pending.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
                        let length = newline - pending.readerIndex
                        guard let line = pending.readSlice(length: length) else { break }
                        pending.moveReaderIndex(forwardBy: 1)
                        if let batch = try Self.batch(fromLine: line) {
                            try await handle(batch)
                            lastHeard.beat()
                        }
                    }
                    pending.discardReadBytes()
                }
                throw EtcdError(.unavailable, "the watch stream ended")
            }
            if let silenceLimit {
                group.addTask {
                    let limit = Int64(silenceLimit.components.seconds) * 1_000_000_000 + silenceLimit.components.attoseconds / 1_000_000_000
                    while true {
                        try await Task.sleep(for: .milliseconds(250))
                        if lastHeard.silence > limit {
                            throw EtcdError(.unavailable, "the watch sent nothing for \(silenceLimit)")
                        }
                    }
                }
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// One line of the stream: events, a progress report, or nothing to pass on (the creation
    /// acknowledgement); throws for a cancelled watch or a stream error.
    static func batch(fromLine line: ByteBuffer) throws -> EtcdWatchBatch? {
        guard line.readableBytes > 0 else { return nil }
        let decoded: EtcdWire.WatchLine
        do {
            decoded = try JSONDecoder().decode(EtcdWire.WatchLine.self, from: Data(buffer: line))
        } catch {
            throw EtcdError(.malformedResponse, "watch: \(error)")
        }
        if let error = decoded.error {
            throw EtcdError(.unavailable, "watch: \(error.message ?? "stream error \(error.grpc_code ?? 0)")")
        }
        guard let result = decoded.result else { return nil }
        if result.canceled == true {
            if let compacted = result.compact_revision?.value, compacted > 0 {
                throw EtcdError(.compacted, "watch: history before revision \(compacted) is compacted")
            }
            throw EtcdError(.unavailable, "watch cancelled: \(result.cancel_reason ?? "no reason given")")
        }
        let events = (result.events ?? []).compactMap { event in
            event.kv.map { EtcdWatchBatch.Event(isDelete: event.type == "DELETE", keyValue: EtcdKeyValue($0)) }
        }
        if events.isEmpty {
            // A creation acknowledgement carries no news; a bare header is a progress report.
            guard result.created != true, let revision = result.header?.revision?.value else { return nil }
            return EtcdWatchBatch(revision: revision, events: [])
        }
        return EtcdWatchBatch(revision: events.map(\.keyValue.modRevision).max() ?? 0, events: events)
    }

    /// When the stream last sent anything, shared by its reader and its watchdog.
    private final class Heartbeat: Sendable {
        private let last = Atomic<Int64>(Heartbeat.now())

        func beat() { self.last.store(Self.now(), ordering: .relaxed) }

        /// Nanoseconds since the last beat.
        var silence: Int64 { Self.now() - self.last.load(ordering: .relaxed) }

        private static func now() -> Int64 { Int64(DispatchTime.now().uptimeNanoseconds) }
    }
}
