import NIOConcurrencyHelpers
import NIOCore

/// The answers of requests sent together on one connection, gathered into one future as they
/// arrive: a push's answer passes through no future of its own, and the batch waits on one
/// (`whenAllComplete` over a future a push cost that future, a callback a push and the
/// reduction's closures).
///
/// How many answers to wait for is known only once the connection has taken its permits, and an
/// answer may come before that (a stream refused at once), so the count is set apart.
final class GatheredAnswers: Sendable {
    private struct State {
        var results: [Result<HTTP2Response, any Error>?]
        var received = 0
        var expected: Int?
    }

    private let state: NIOLockedValueBox<State>
    private let promise: EventLoopPromise<[Result<HTTP2Response, any Error>?]>

    /// Gathers up to `count` answers, slot by slot, completing on `eventLoop`.
    init(count: Int, on eventLoop: any EventLoop) {
        self.state = NIOLockedValueBox(State(results: Array(repeating: nil, count: count)))
        self.promise = eventLoop.makePromise()
    }

    /// Every answer, by slot (`nil` where no request was sent), once the expected ones are in.
    var futureResult: EventLoopFuture<[Result<HTTP2Response, any Error>?]> { self.promise.futureResult }

    func answer(_ slot: Int, _ result: Result<HTTP2Response, any Error>) {
        let complete = self.state.withLockedValue { state -> [Result<HTTP2Response, any Error>?]? in
            state.results[slot] = result
            state.received += 1
            return state.received == state.expected ? state.results : nil
        }
        if let complete { self.promise.succeed(complete) }
    }

    /// Sets how many answers come; with none, or all of them in, the future completes now.
    func expect(_ count: Int) {
        let complete = self.state.withLockedValue { state -> [Result<HTTP2Response, any Error>?]? in
            state.expected = count
            return state.received == count ? state.results : nil
        }
        if let complete { self.promise.succeed(complete) }
    }
}
