import HeraldCore
import HeraldDelivery
import Testing

/// Which endpoints the provider sends to: the allow-list first, then every address the host
/// resolves to.
@Suite struct WebPushEndpointPolicyTests {
    struct Resolver: HostResolver {
        var answers: [String: [String]]

        func addresses(of host: String, port: Int) async throws -> [String] {
            guard let found = self.answers[host] else { throw HostResolutionError(host: host, reason: "Name or service not known") }
            return found
        }
    }

    static func policy(_ globs: [String] = ["*"], allowing ranges: [String] = [], _ answers: [String: [String]] = [:]) -> WebPushEndpointPolicy {
        WebPushEndpointPolicy(
            allowedEndpoints: globs.map { Glob($0, caseInsensitive: true) },
            allowedAddresses: ranges.map { AddressRange($0)! },
            resolver: Resolver(answers: answers)
        )
    }

    static func endpoint(_ url: String) throws -> WebPushSubscription.Endpoint {
        try WebPushSubscription.Endpoint(url)
    }

    @Test(arguments: [
        "127.0.0.1", "127.9.9.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1",
        "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1",
        "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::a00:1", "64:ff9b::7f00:1", "64:ff9b:1::1", "2002:7f00:1::", "2001:db8::1",
        "::127.0.0.1", "2001::1", "2001:2::1", "2001:10::1", "3fff::1", "5f00::1", "::ffff:0:7f00:1", "100::1",
    ])
    func addressesNoPushServiceLivesAtAreRefused(address: String) {
        #expect(!Self.policy().isAllowed(address))
    }

    @Test(arguments: ["8.8.8.8", "142.250.74.106", "172.32.0.1", "192.169.0.1", "2a00:1450:4001:80b::200a", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"])
    func publicAddressesAreAllowed(address: String) {
        #expect(Self.policy().isAllowed(address))
    }

    @Test func theOperatorMayAllowANetwork() {
        let policy = Self.policy(allowing: ["10.20.0.0/16", "fd00::/8", "127.0.0.1"])
        #expect(policy.isAllowed("10.20.3.4"))
        #expect(!policy.isAllowed("10.21.0.1"))
        #expect(policy.isAllowed("fd00::5"))
        #expect(policy.isAllowed("127.0.0.1"))
        #expect(policy.isAllowed("::ffff:127.0.0.1"), "the same address mapped into IPv6")
        #expect(!policy.isAllowed("127.0.0.2"))
        #expect(AddressRange("10.0.0.0/33") == nil)
        #expect(AddressRange("example.org") == nil)
    }

    @Test func globsMatchHostAndPortCaseInsensitively() throws {
        let policy = Self.policy(["*.push.apple.com", "ntfy.example.org:8443"])
        #expect(policy.allows(try Self.endpoint("https://WEB.push.apple.com/x")))
        #expect(!policy.allows(try Self.endpoint("https://push.apple.com.evil.org/x")))
        #expect(policy.allows(try Self.endpoint("https://ntfy.example.org:8443/up")))
        #expect(!policy.allows(try Self.endpoint("https://ntfy.example.org/up")), "the port is part of the name")
    }

    @Test func aHostResolvingIntoTheOperatorsNetworkIsRefusedAfterResolution() async throws {
        let policy = Self.policy(["*"], ["rebind.example.org": ["10.0.0.5", "::1"], "mixed.example.org": ["::1", "2606:4700::1", "10.0.0.1", "93.184.215.14"]])
        await #expect(throws: WebPushEndpointError.self) { try await policy.allowedAddresses(for: try Self.endpoint("https://rebind.example.org/x")) }
        #expect(try await policy.allowedAddresses(for: try Self.endpoint("https://mixed.example.org/x")) == ["93.184.215.14", "2606:4700::1"], "public addresses, IPv4 first")
        await #expect(throws: WebPushEndpointError.self) { try await policy.allowedAddresses(for: try Self.endpoint("https://169.254.169.254/latest")) }
    }

    @Test func aNameThatDoesNotResolveIsUnavailableNotRefused() async throws {
        do {
            _ = try await Self.policy().allowedAddresses(for: try Self.endpoint("https://nowhere.example.org/x"))
            Issue.record("resolved")
        } catch {
            guard case .unavailable? = error as? WebPushEndpointError else { Issue.record("\(error)"); return }
        }
    }

    @Test func theSystemResolverSeesLocalhostAsLoopback() async throws {
        let addresses = try await SystemHostResolver().addresses(of: "localhost", port: 443)
        #expect(addresses.contains("127.0.0.1") || addresses.contains("::1"))
        let policy = WebPushEndpointPolicy(allowedEndpoints: [Glob("*")])
        do {
            _ = try await policy.allowedAddresses(for: try Self.endpoint("https://localhost/x"))
            Issue.record("localhost was allowed")
        } catch {
            guard case .refused(let message)? = error as? WebPushEndpointError else { Issue.record("\(error)"); return }
            #expect(message.contains("not public"))
        }
    }
}
