public import Foundation

/// What one load run measured, as written to the JSON result file.
public struct LoadResult: Codable, Sendable {
    public struct Latency: Codable, Sendable {
        public var p50: Double
        public var p90: Double
        public var p99: Double
        public var p999: Double
        public var max: Double
        public var mean: Double
    }

    public var scenario: String
    public var mode: String
    public var url: String
    /// Offered requests per second (open loop); `nil` for closed loop.
    public var offeredRate: Double?
    public var concurrency: Int
    public var durationSeconds: Double
    public var requests: Int
    public var succeeded: Int
    public var errors: [String: Int]
    public var notificationsPerRequest: Int
    public var requestsPerSecond: Double
    public var notificationsPerSecond: Double
    /// Milliseconds; open-loop latency runs from each request's intended send time, so a stalled
    /// server cannot hide its queueing (coordinated omission).
    public var latencyMilliseconds: Latency
    /// Successful requests completed in each second of the run.
    public var completedPerSecond: [Int]
    public var startedAt: Date

    /// Human-readable summary lines.
    public var summary: String {
        let l = self.latencyMilliseconds
        func f(_ value: Double) -> String { String(format: "%.2f", value) }
        var lines = [
            "\(self.scenario) \(self.mode) loop against \(self.url): \(self.requests) requests in \(f(self.durationSeconds)) s",
            "  \(f(self.requestsPerSecond)) requests/s, \(f(self.notificationsPerSecond)) notifications/s (\(self.notificationsPerRequest) per request)",
            "  latency ms: p50 \(f(l.p50))  p90 \(f(l.p90))  p99 \(f(l.p99))  p99.9 \(f(l.p999))  max \(f(l.max))  mean \(f(l.mean))",
            "  succeeded \(self.succeeded), errors \(self.errors.values.reduce(0, +))",
        ]
        for (kind, count) in self.errors.sorted(by: { $0.key < $1.key }) { lines.append("    \(kind): \(count)") }
        return lines.joined(separator: "\n")
    }
}
