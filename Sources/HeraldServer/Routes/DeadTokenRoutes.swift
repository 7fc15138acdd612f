import HeraldCluster
import HeraldCore
import HeraldFrontDoor
import HeraldStore
import Hummingbird
import HTTPTypes

/// The internal API other nodes forward dead-token disables to, when this node owns the
/// registration's partition; behind the cluster secret.
struct DeadTokenRoutes: Sendable {
    let handler: RegistryDeadTokenHandler
    let router: ClusterRouter

    func register(on routes: some RouterMethods<HeraldRequestContext>) {
        routes.post(RouterPath(stringLiteral: RegistryDeadTokenHandler.internalPath)) { request, _ in
            let body = try await request.body.collect(upTo: 1 << 16)
            let command: RegistryCommand
            do {
                command = try RegistryCommand.decoded(from: Array(buffer: body))
            } catch {
                throw HTTPError(.badRequest, message: "the body must be one encoded registry command: \(error)")
            }
            guard case .disableToken(let key, _, _) = command else {
                throw HTTPError(.badRequest, message: "only token disables are taken here")
            }
            let from = HTTPField.Name(ClusterRouter.forwardedHeader).flatMap { request.headers[$0] } ?? "another node"
            let partition = key.partition(of: self.router.membership.configuration.partitions)
            guard case .local = self.router.decide(partition: partition, forwardedFrom: from) else {
                throw HTTPError(.serviceUnavailable, message: "partition \(partition) is not this node's")
            }
            try await self.handler.disable(command)
            return HTTPResponse.Status.noContent
        }
    }
}
