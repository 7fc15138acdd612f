/// The entries of a command log from a position on, endlessly: `next()` returns the next entry,
/// waiting for it to be appended when needed, and throws `CancellationError` when the task is
/// cancelled.
public struct LogWatch: AsyncSequence, Sendable {
    public typealias Element = LogEntry

    let log: any CommandLog
    let start: LogPosition
    let batchSize: Int

    public struct AsyncIterator: AsyncIteratorProtocol {
        let log: any CommandLog
        let batchSize: Int
        var next: LogPosition
        var buffered: [LogEntry] = []
        var index = 0

        public mutating func next() async throws -> LogEntry? {
            while self.index == self.buffered.count {
                try Task.checkCancellation()
                self.buffered = try await self.log.entries(from: self.next, limit: self.batchSize)
                self.index = 0
                if let last = self.buffered.last {
                    self.next = last.position + 1
                } else {
                    _ = try await self.log.waitForHead(beyond: self.next - 1)
                }
            }
            defer { self.index += 1 }
            return self.buffered[self.index]
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(log: self.log, batchSize: self.batchSize, next: self.start)
    }
}
