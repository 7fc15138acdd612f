import HeraldStore
import Synchronization

/// Reads the command log's head, giving up after a limit. In a cluster the head is etcd's, and
/// a partitioned etcd answers only when the client's own timeout ends: a probe or a scrape
/// waiting that long is one Prometheus counts as a dead node (its scrape timeout is 10 s), and
/// the metrics that would say "etcd is unreachable" never arrive. The read goes on after the
/// limit, unawaited, until the client ends it.
enum BoundedHeadRead {
    enum Ending: Sendable {
        case head(UInt64)
        case failed(String)
        case timedOut

        /// The head, when it was read in time.
        var head: UInt64? {
            if case .head(let head) = self { head } else { nil }
        }
    }

    static let limit: Duration = .seconds(2)

    static func head(of log: any CommandLog, within limit: Duration = Self.limit) async -> Ending {
        let once = OnceContinuation()
        return await withCheckedContinuation { continuation in
            once.set(continuation)
            let timer = Task {
                try? await Task.sleep(for: limit)
                once.resume(.timedOut)
            }
            Task {
                do {
                    once.resume(.head(try await log.head()))
                } catch {
                    once.resume(.failed("\(error)"))
                }
                timer.cancel()
            }
        }
    }

    /// Resumes its continuation with whichever ending comes first, and ignores the other.
    private final class OnceContinuation: Sendable {
        private let continuation = Mutex<CheckedContinuation<Ending, Never>?>(nil)

        func set(_ continuation: CheckedContinuation<Ending, Never>) {
            self.continuation.withLock { $0 = continuation }
        }

        func resume(_ ending: Ending) {
            self.continuation.withLock { continuation in
                continuation?.resume(returning: ending)
                continuation = nil
            }
        }
    }
}
