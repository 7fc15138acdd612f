import HeraldDelivery
import Hummingbird

/// `GET /status`: what the status page shows, as JSON, from the node's own state.
struct NodeStatus: ResponseEncodable {
    var node: String
    /// `single` or `cluster`.
    var mode: String
    var version: String
    var commit: String
    /// ISO 8601.
    var startedAt: String
    var generatedAt: String
    var uptimeSeconds: Int
    var health: String
    var readiness: Readiness
    var apps: [App]
    var pushes: Pushes
    var queue: Queue
    /// `nil` for a node alone.
    var cluster: Cluster?

    struct Readiness: Encodable {
        var status: String
        var problems: [String]
        var logHead: UInt64
        var appliedPosition: UInt64
    }

    struct App: Encodable {
        var id: String
        var providers: [Provider]
    }

    struct Provider: Encodable {
        /// `apns`, `fcm`.
        var name: String
        /// The host, environment and credential kind, as the start-up log names them; never a secret.
        var endpoint: String
        var connections: Int
        /// Pushes admitted and not finished.
        var inFlight: Int
        var connectFailures: Int
        var lastFailure: Failure?
        /// The last minutes, oldest first.
        var minutes: [Minute]
    }

    struct Failure: Encodable {
        var at: String
        var result: String
        var reason: String
    }

    struct Minute: Encodable {
        var start: String
        var delivered: Int
        var deadToken: Int
        var rejected: Int
        var failed: Int
        var notAdmitted: Int

        init(start: String, counts: RecentDeliveries.Counts) {
            self.start = start
            self.delivered = counts.delivered
            self.deadToken = counts.deadToken
            self.rejected = counts.rejected
            self.failed = counts.failed
            self.notAdmitted = counts.notAdmitted
        }
    }

    struct Pushes: Encodable {
        /// Pushes a second over the last complete minute.
        var perSecond: Double
        /// Every provider's minutes added up, oldest first.
        var minutes: [Minute]
    }

    struct Queue: Encodable {
        /// Pushes accepted by front doors and kept in the journal until delivered.
        var accepted: Int
        var oldestAcceptedSeconds: Double
        /// Admitted to a provider and not finished, over every provider.
        var inFlight: Int
    }

    struct Cluster: Encodable {
        var members: [Member]
        var partitions: Int
        var ownedHere: Int
        var logHead: UInt64
        var appliedRevision: UInt64
        var lag: UInt64
        /// `reachable` or `unreachable`.
        var etcd: String
    }

    struct Member: Encodable {
        var id: String
        var url: String
        var partitions: Int
    }
}
