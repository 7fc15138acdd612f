import Foundation
public import Testing

/// Marks a test, or every test of a suite, as one that loads the machine: it starts etcd
/// members, several nodes, network namespaces or child processes, or drives a TLS peer with
/// hundreds of requests.
///
/// Swift Testing runs every suite at once. On two cores, several such tests side by side starve
/// each other's servers until their deadlines pass, so these take turns: at most
/// `HERALD_TEST_HEAVY_WIDTH` (default 2) load-heavy test cases run at once, beside any number of
/// light ones.
public struct LoadHeavy: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        // A recursive suite trait may also be asked to scope the suite itself; only test cases
        // take turns, so a suite never holds a turn its own tests wait for.
        guard testCase != nil else {
            try await function()
            return
        }
        try await LoadTurns.shared.take(function)
    }
}

extension Trait where Self == LoadHeavy {
    /// Takes turns with the other load-heavy test cases of this process.
    public static var loadHeavy: Self { LoadHeavy() }
}

/// The turns `LoadHeavy` hands out, first come first served.
actor LoadTurns {
    /// One for the test process: the cores the tests share are the process's.
    static let shared = LoadTurns(width: LoadTurns.configuredWidth)

    /// `HERALD_TEST_HEAVY_WIDTH`: how many load-heavy test cases may run at once (default 2).
    static var configuredWidth: Int {
        guard let text = ProcessInfo.processInfo.environment["HERALD_TEST_HEAVY_WIDTH"], let width = Int(text), width > 0 else {
            return 2
        }
        return width
    }

    private let width: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) {
        self.width = max(width, 1)
    }

    func take(_ body: @Sendable () async throws -> Void) async throws {
        if self.running < self.width {
            self.running += 1
        } else {
            await withCheckedContinuation { self.waiting.append($0) }
        }
        defer { self.handOver() }
        try await body()
    }

    /// Passes the turn to the next waiter, or frees it: the next waiter runs on the turn it is
    /// handed, so no newcomer slips in between.
    private func handOver() {
        if self.waiting.isEmpty {
            self.running -= 1
        } else {
            self.waiting.removeFirst().resume()
        }
    }
}
