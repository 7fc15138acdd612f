import HeraldCore
import ArgumentParser
import AsyncHTTPClient
import Foundation
import HeraldCluster
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

extension Herald {
    struct Cluster: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Inspect a Herald cluster.",
            subcommands: [Status.self]
        )
    }
}

extension Herald.Cluster {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print each node's view of the cluster: members, owned partitions, applied revision and lag (GET /cluster)."
        )

        @Option(name: .customLong("url"), help: "A node's HTTP address; repeat for several nodes.")
        var urls: [String] = ["http://127.0.0.1:8080"]

        func run() async throws {
            var failed = false
            for url in self.urls {
                var request = HTTPClientRequest(url: url.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + "/cluster")
                request.method = .GET
                do {
                    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
                    let body = try await response.body.collect(upTo: 1 << 20)
                    guard response.status == .ok else {
                        print("\(URLRedaction.redact(url)): HTTP \(response.status.code)")
                        failed = true
                        continue
                    }
                    let status = try JSONDecoder().decode(ClusterStatus.self, from: Data(buffer: body))
                    print("\(URLRedaction.redact(url)): node \(status.node) (\(status.mode)), etcd \(status.etcd)")
                    print("  members: \(status.members.map { "\($0.id) \($0.url)" }.joined(separator: ", "))")
                    print("  partitions owned: \(status.owned.count) of \(status.partitions)")
                    print("  applied revision \(status.appliedRevision), log head \(status.logHead), lag \(status.lag)")
                } catch {
                    print("\(URLRedaction.redact(url)): unreachable: \(error)")
                    failed = true
                }
            }
            if failed { throw ExitCode(1) }
        }
    }
}
