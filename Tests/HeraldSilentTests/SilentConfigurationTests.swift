import HeraldConfig
import Testing

@testable import HeraldSilent

/// `silent.*` as values: the services list, the default service, the declared defaults.
@Suite struct SilentConfigurationTests {
    @Test func servicesParseAsNameEqualsAppAndOptionalSandboxApp() {
        #expect(SilentService(parsing: "news=news-app") == SilentService(name: "news", app: "news-app", sandboxApp: nil))
        #expect(SilentService(parsing: " news = news-app / news-dev ") == SilentService(name: "news", app: "news-app", sandboxApp: "news-dev"))
        let longest = String(repeating: "a", count: 63)
        #expect(SilentService(parsing: "\(longest)=x")?.name == longest)
        #expect(SilentService(parsing: "news=news-app")?.pathPrefix == "/news")
    }

    @Test(arguments: [
        "news", "=x", "news=", "news=a/", "news=/b", "news=a/b/c", "default=x", "News=x", "-news=x", "ne--ws=x", "news!=x",
        String(repeating: "a", count: 64) + "=x",
    ])
    func malformedServicesAreRefused(item: String) {
        #expect(SilentService(parsing: item) == nil)
    }

    @Test func theDefaultServiceComesFirstAndServesTheBarePaths() {
        var configuration = SilentConfiguration()
        #expect(!configuration.isEnabled)
        #expect(configuration.allServices.isEmpty)
        let news = SilentService(name: "news", app: "news-app", sandboxApp: nil)
        configuration.services = [news]
        #expect(configuration.isEnabled, "a named service alone enables the front door")
        configuration.app = "toot"
        configuration.sandboxApp = "toot-dev"
        #expect(configuration.allServices == [SilentService(name: SilentService.defaultName, app: "toot", sandboxApp: "toot-dev"), news])
        #expect(configuration.allServices.map(\.pathPrefix) == ["", "/news"])
    }

    @Test func declaredDefaultsAreTheUnconfiguredValues() {
        let declared = Dictionary(uniqueKeysWithValues: SilentConfiguration.keys.map { ($0.name, $0.defaultValue ?? "(none)") })
        let configuration = SilentConfiguration()
        #expect(declared["silent.rate-limit"] == "\(configuration.rateLimit)")
        #expect(declared["silent.broadcast-rate"] == "\(configuration.broadcastRate)")
        #expect(declared["silent.max-running-broadcasts"] == "\(configuration.broadcastLimits.running)")
        #expect(declared["silent.max-running-broadcasts-per-service"] == "\(configuration.broadcastLimits.runningPerService)")
        #expect(declared["silent.broadcast-window"] == "\(configuration.broadcastLimits.window)")
        #expect(declared["silent.broadcast-retention"] == "7d")
        #expect(configuration.broadcastLimits.retention == .seconds(7 * 86_400))
        #expect(declared["silent.client-rate-limit"] == "\(configuration.clientRateLimit)")
        #expect(declared["silent.collapse-key"] == configuration.collapseKey)
        #expect(declared["silent.fcm-priority"] == configuration.fcmPriority.rawValue)
        #expect(declared["silent.time-to-live"] == "15m")
        #expect(configuration.timeToLive == .seconds(15 * 60))
        #expect(declared["silent.app"] == "(none)", "no app: the front door is off")
        #expect(
            Set(declared.keys)
                == Set([
                    "silent.app", "silent.sandbox-app", "silent.services", "silent.rate-limit", "silent.time-to-live", "silent.fcm-priority",
                    "silent.collapse-key", "silent.broadcast-rate", "silent.max-running-broadcasts", "silent.max-running-broadcasts-per-service",
                    "silent.broadcast-window", "silent.broadcast-retention", "silent.client-rate-limit",
                ])
        )
    }
}
