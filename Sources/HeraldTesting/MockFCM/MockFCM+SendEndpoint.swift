import Foundation
import NIOConcurrencyHelpers

extension MockFCM {
    /// Records stop here so a long benchmark cannot exhaust memory; `acceptedCount` goes on.
    static let acceptedRecordLimit = 1_000_000

    /// `POST /v1/projects/{project}/messages:send`, checked in the order of fcm.md §6 items 4–12:
    /// credentials, project, body; then scripted answers; then success.
    func send(project: String, authorization: String?, contentType: String?, body: [UInt8], overHTTP2: Bool) -> MockFCMAnswer {
        self.shared.withLockedValue { $0.sendRequests += 1 }
        // Google checks credentials before anything about the request.
        guard self.isAuthorized(authorization) else { return .unauthenticated }
        // IAM answers 403 for a project the caller may not use, whether or not it exists, so a
        // caller cannot probe for projects; the mock does the same rather than 404. It is no FCM
        // answer, so no FcmError detail.
        guard project == self.configuration.projectID || project == self.configuration.projectNumber else {
            return .rpc(
                403,
                "PERMISSION_DENIED",
                "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(project)' "
                    + "(or it may not exist). The mock serves project \(self.configuration.projectID)"
                    + (self.configuration.projectNumber.map { " (number \($0))" } ?? "") + "."
            )
        }
        let request: SendRequest
        do {
            request = try Self.parseSend(contentType: contentType, body: body)
        } catch {
            return .invalidArgument(field: error.field, error.description)
        }
        if let state = self.scriptedState(for: request.target) {
            return .state(state)
        }
        let name = "projects/\(project)/messages/\(Self.newMessageID(now: self.configuration.now()))"
        if !request.validateOnly {
            let accepted = AcceptedMessage(
                name: name,
                project: project,
                target: request.target,
                message: Data(request.message),
                data: request.data,
                androidPriority: request.androidPriority,
                androidTTL: request.androidTTL,
                androidCollapseKey: request.androidCollapseKey,
                overHTTP2: overHTTP2
            )
            self.shared.withLockedValue { shared in
                shared.acceptedCount += 1
                if shared.accepted.count < Self.acceptedRecordLimit { shared.accepted.append(accepted) }
            }
        }
        return .sent(name: name)
    }

    /// A token's scripted state wins; otherwise the next queued `failNext` failure, if any.
    func scriptedState(for target: AcceptedMessage.Target) -> TokenState? {
        self.shared.withLockedValue { shared in
            if case .token(let token) = target, let state = shared.tokenStates[token] { return state }
            guard let next = shared.failNext.first else { return nil }
            if next.remaining > 1 {
                shared.failNext[0].remaining -= 1
            } else {
                shared.failNext.removeFirst()
            }
            return next.state
        }
    }

    /// FCM's message ids look like `0:1500415314455276%31bd1c9631bd1c96`: microseconds, then
    /// 64 random bits in hex.
    static func newMessageID(now: Date) -> String {
        let random = String(UInt64.random(in: .min ... .max), radix: 16)
        return "0:\(UInt64(now.timeIntervalSince1970 * 1_000_000))%\(String(repeating: "0", count: 16 - random.count))\(random)"
    }
}
