import HeraldDelivery
import HeraldServer
import Testing

/// What a node counts against the open-file limit before it caps its API connections, and the
/// refusal when the limit cannot hold the configuration.
@Suite struct DescriptorBudgetTests {
    static func app(apns: Int?, fcm: Int?) -> HeraldConfiguration.App {
        var app = HeraldConfiguration.App()
        if let apns {
            var configuration = APNSAppConfiguration()
            configuration.keyID = "KEY0000001"
            configuration.connections = apns
            app[APNSAppConfiguration.self] = configuration
        }
        if let fcm {
            var configuration = FCMAppConfiguration()
            configuration.connections = fcm
            app[FCMAppConfiguration.self] = configuration
        }
        return app
    }

    @Test func aDefaultNodeLeavesMostOfTheLimitToAPIConnections() {
        let budget = DescriptorBudget(configuration: HeraldConfiguration(), eventLoops: 2)
        // 3 standard streams + 3 × 2 event loops + 4 LMDB files + 2 writer loops of 3, 48
        // transient, 1 listener.
        #expect(budget.reserved == 19 + 48 + 1)
        #expect(budget.apiConnections(configured: 8192, openFiles: 1024) == 1024 - 68)
        #expect(budget.apiConnections(configured: 100, openFiles: 1024) == 100)
        #expect(budget.apiConnections(configured: 8192, openFiles: Int.max) == 8192)
    }

    @Test func providerConnectionsAndTheOperationsPortAreCounted() {
        var configuration = HeraldConfiguration()
        configuration.server.operationsPort = 9090
        configuration.apps["gorush"] = Self.app(apns: 64, fcm: 64)
        configuration.apps["relay"] = Self.app(apns: 64, fcm: nil)
        configuration.apps["droid"] = Self.app(apns: nil, fcm: 64)
        configuration.feedback.url = "https://hooks.example/herald"
        let budget = DescriptorBudget(configuration: configuration, eventLoops: 2)
        // 64 × 4 provider connections, one OAuth client per FCM app and one channel management
        // connection per APNs app.
        #expect(budget.items.contains { $0.count == 260 && $0.what.contains("apps.gorush.apns 65") && $0.what.contains("apps.droid.fcm 65") })
        #expect(budget.items.contains { $0.count == 64 && $0.what == "operations-port connections" })
        #expect(budget.items.contains { $0.count == 8 && $0.what == "the feedback webhook" })
        #expect(budget.reserved == 19 + 48 + 2 + 64 + 260 + 8)
        // The node the probe killed at 256 open files does not start there.
        #expect(budget.apiConnections(configured: 8192, openFiles: 256) == nil)
        let refusal = budget.refusal(openFiles: 256)
        #expect(refusal.hasPrefix("the open-file limit (256) cannot hold what this configuration opens: "))
        #expect(refusal.contains("260 for provider connections (apps.droid.fcm 65, apps.gorush.apns 65, apps.gorush.fcm 65, apps.relay.apns 65)"))
        #expect(refusal.contains("raise the limit to at least \(budget.reserved + 16)"))
        #expect(budget.apiConnections(configured: 8192, openFiles: budget.reserved + 16) == 16)
    }

    @Test func aClusterCountsEtcdPeersAndItsInternalPort() {
        var configuration = HeraldConfiguration()
        configuration.cluster.etcdEndpoints = ["http://127.0.0.1:2379", "http://127.0.0.1:2380", "http://127.0.0.1:2381"]
        let plain = DescriptorBudget(configuration: configuration, eventLoops: 2)
        #expect(plain.reserved == 68 + 24 + 56)
        configuration.cluster.tlsCertificateFile = "node.pem"
        let tls = DescriptorBudget(configuration: configuration, eventLoops: 2)
        #expect(tls.reserved == plain.reserved + 1 + DescriptorBudget.internalConnections, "a listener and its connections")
    }
}
