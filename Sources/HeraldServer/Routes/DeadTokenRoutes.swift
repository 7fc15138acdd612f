import HeraldCluster
import HeraldCore
import HeraldFrontDoor
import HeraldStore
import Hummingbird

/// The internal API other nodes forward dead-token disables to, when this node owns the
/// registration's partition; behind the cluster secret.
struct DeadTokenRoutes: Sendable {
    let handler: RegistryDeadTokenHandler
    let routing: PartitionRouting

    func register(on routes: some RouterMethods<HeraldRequestContext>) {
        routes.allowOnly([.post], at: RouterPath(stringLiteral: RegistryDeadTokenHandler.internalPath))
        routes.post(RouterPath(stringLiteral: RegistryDeadTokenHandler.internalPath)) { request, context in
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
            do throws(RegistryDeadTokenHandler.Failure) {
                try self.routing.checkOwned(PartitionKey(key), forwardedFrom: context.forwardedFrom, as: RegistryDeadTokenHandler.Failure.self)
            } catch {
                throw HTTPError(.serviceUnavailable, message: "this node does not own the registration: \(error)")
            }
            try await self.handler.disable(command)
            return HTTPResponse.Status.noContent
        }
    }
}
