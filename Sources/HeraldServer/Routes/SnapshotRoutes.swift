import Foundation
import HTTPTypes
import HeraldFrontDoor
import HeraldStore
import Hummingbird
import NIOCore
import NIOFoundationCompat
import NIOPosix

/// Serves a snapshot of this node's store to a node joining the cluster with an empty store, on
/// the internal API (behind the cluster secret, or mutual TLS). One at a time: each is a
/// compacted copy of the whole store written to disk, then streamed from there a chunk at a time.
struct SnapshotRoutes: Sendable {
    static let path = "/internal/v1/snapshot"
    static let positionHeader = HTTPField.Name("Herald-Snapshot-Position")!
    static let sourceHeader = HTTPField.Name("Herald-Snapshot-Source")!

    let store: LocalStore
    /// The store's directory: the copy is staged on its disk.
    let directory: String
    let serving: OneAtATime

    func register(on routes: some RouterMethods<HeraldRequestContext>) {
        routes.get(RouterPath(stringLiteral: Self.path)) { _, _ in
            try await self.snapshot()
        }
        routes.allowOnly([.get], at: RouterPath(stringLiteral: Self.path))
    }

    private func snapshot() async throws -> Response {
        guard self.serving.enter() else {
            throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "5"], message: "this node is writing a snapshot for another node already; try again or ask another node")
        }
        let file = self.directory + "/.snapshot-serving-\(UUID().uuidString)"
        let store = self.store
        let directory = self.directory
        let header: StoreSnapshot.Header
        do {
            // Copying and hashing the whole store blocks: off the event loops.
            header = try await NIOThreadPool.singleton.runIfActive {
                guard FileManager.default.createFile(atPath: file, contents: nil, attributes: [.posixPermissions: 0o600]),
                    let output = FileHandle(forWritingAtPath: file)
                else {
                    throw StoreError(.lmdb, "cannot create \(file)")
                }
                defer { try? output.close() }
                return try store.writeSnapshot(to: output, stagingDirectory: directory)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: file)
            self.serving.leave()
            throw HTTPError(.internalServerError, message: "cannot write a snapshot: \(error)")
        }
        let length = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? nil
        var headers: HTTPFields = [.contentType: "application/octet-stream"]
        headers[Self.positionHeader] = "\(header.appliedPosition)"
        if let source = header.source { headers[Self.sourceHeader] = source }
        let serving = self.serving
        return Response(
            status: .ok,
            headers: headers,
            body: ResponseBody(contentLength: length) { writer in
                defer {
                    try? FileManager.default.removeItem(atPath: file)
                    serving.leave()
                }
                guard let input = FileHandle(forReadingAtPath: file) else { throw StoreError(.lmdb, "cannot read \(file)") }
                defer { try? input.close() }
                while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                    try await writer.write(ByteBuffer(data: chunk))
                }
                try await writer.finish(nil)
            }
        )
    }
}
