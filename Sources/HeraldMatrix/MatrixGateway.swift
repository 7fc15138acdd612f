import Crypto
public import Foundation
public import HeraldCluster
public import HeraldCore
public import HeraldDelivery
public import HeraldStore

/// The Matrix push gateway: a homeserver's notify turned into a push per device, with the answer
/// Synapse acts on (docs/matrix-push-facts.md §10). Each device is handled at the owner of its
/// pushkey's partition, where its events are remembered: a homeserver that retries after a lost
/// answer, through any node, is not pushed twice.
public struct MatrixGateway: Sendable {
    let configuration: MatrixConfiguration
    let providers: AppProviders
    let markers: MessageMarkers
    let routing: PartitionRouting
    let metrics: MatrixMetrics
    let wallClock: @Sendable () -> Date

    public static let internalPath = "/internal/v1/matrix/device"

    public init(
        configuration: MatrixConfiguration,
        providers: AppProviders,
        markers: MessageMarkers,
        routing: PartitionRouting,
        metrics: MatrixMetrics,
        wallClock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.configuration = configuration
        self.providers = providers
        self.markers = markers
        self.routing = routing
        self.metrics = metrics
        self.wallClock = wallClock
    }

    /// How one device ended.
    public enum DeviceResult: Sendable, Equatable {
        case pushed
        /// Nothing to push (no alert, no badge), which Sygnal does not reject either.
        case skipped
        /// The pushkey goes in `rejected`: the homeserver deletes the pusher.
        case rejected(String)
        /// The homeserver should retry the request: 502.
        case failed(String)

        var label: String {
            switch self {
            case .pushed: "pushed"
            case .skipped: "skipped"
            case .rejected: "rejected"
            case .failed: "failed"
            }
        }

        init(wire: JSONValue) {
            guard case .object(let fields) = wire, case .string(let result)? = fields.first(where: { $0.0 == "result" })?.1 else {
                self = .failed("the owner's answer was not understood")
                return
            }
            let reason: String
            if case .string(let text)? = fields.first(where: { $0.0 == "reason" })?.1 { reason = text } else { reason = "" }
            switch result {
            case "pushed": self = .pushed
            case "skipped": self = .skipped
            case "rejected": self = .rejected(reason)
            default: self = .failed(reason)
            }
        }

        var wire: JSONValue {
            switch self {
            case .pushed, .skipped: .object([("result", .string(self.label))])
            case .rejected(let reason), .failed(let reason): .object([("result", .string(self.label)), ("reason", .string(reason))])
            }
        }
    }

    /// The answer to a homeserver: `200 {"rejected": […]}` when every device ended (pushed,
    /// rejected or with nothing to push), else 502 so that it retries.
    public struct Answer: Sendable {
        public var status: Int
        public var body: [UInt8]
    }

    /// Handles a notify body: refused whole (400) before anything is pushed when it is not one,
    /// else each device in order.
    public func notify(_ body: [UInt8]) async throws(MatrixError) -> Answer {
        let notification = try MatrixNotification(parsing: body)
        var rejected: [String] = []
        var failures: [String] = []
        for device in notification.devices {
            let result = await self.atOwner(device, of: notification)
            self.metrics.device(result.label)
            switch result {
            case .pushed, .skipped: break
            case .rejected: rejected.append(device.pushkey)
            case .failed(let reason): failures.append(reason)
            }
        }
        guard failures.isEmpty else {
            // Sygnal's status for a provider it could not reach: the homeserver retries, and the
            // devices already pushed are remembered, so only the rest go again.
            return Answer(status: 502, body: MatrixError(.unknown, "not every push was made; retry: \(failures.joined(separator: "; "))").body)
        }
        return Answer(status: 200, body: JSONValue.object([("rejected", .array(rejected.map { .string($0) }))]).bytes)
    }

    /// A device forwarded by another node: its notification with this device alone.
    public func device(_ body: [UInt8], forwardedFrom: String) async -> JSONValue {
        guard let notification = try? MatrixNotification(parsing: body), notification.devices.count == 1 else {
            return DeviceResult.failed("the forwarded notification was not one device's").wire
        }
        let device = notification.devices[0]
        do throws(MatrixError) {
            try self.routing.checkOwned(Self.partitionKey(device), forwardedFrom: forwardedFrom, as: MatrixError.self)
        } catch {
            return DeviceResult.failed(error.message).wire
        }
        return await self.handle(device, of: notification).wire
    }

    private func atOwner(_ device: MatrixNotification.Device, of notification: MatrixNotification) async -> DeviceResult {
        do throws(MatrixError) {
            return try await self.routing.atOwner(
                of: Self.partitionKey(device),
                forwardedFrom: nil,
                forwarding: {
                    // The notification with this device alone.
                    let one = notification.fields.map { $0.0 == "devices" ? ($0.0, JSONValue.array([device.raw])) : $0 }
                    return PartitionRouting.Forwarding(path: Self.internalPath, body: JSONValue.object([("notification", .object(one))]).bytes)
                },
                relay: { answer throws(MatrixError) in
                    guard answer.status == 200, let value = try? JSONValue(parsing: answer.body) else {
                        return .failed("the pushkey's owner answered \(answer.status)")
                    }
                    return DeviceResult(wire: value)
                },
                here: { () async throws(MatrixError) in await self.handle(device, of: notification) }
            )
        } catch {
            return .failed(error.message)
        }
    }

    static func partitionKey(_ device: MatrixNotification.Device) -> PartitionKey {
        PartitionKey(bytes: Array(SHA256.hash(data: Array((device.appID + "\u{0}" + device.pushkey).utf8))))
    }

    // MARK: One device, at its owner

    func handle(_ device: MatrixNotification.Device, of notification: MatrixNotification) async -> DeviceResult {
        guard let route = self.configuration.apps.route(for: device.appID) else {
            return .rejected("no app serves app_id \(device.appID.prefix(80))")
        }
        let now = UInt64(max(self.wallClock().timeIntervalSince1970, 0))
        let pushkeyID = Array(SHA256.hash(data: Array((device.appID + "\u{0}" + device.pushkey).utf8)))
        if let learned = try? self.markers.value(of: pushkeyID, in: self.configuration.deadPushkeys, now: now) {
            // A pusher registered again since the provider said the token was dead gets a push.
            let since = learned.count == 8 ? learned.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) } : now
            if device.pushkeyTimestamp.map({ UInt64(max($0, 0)) <= since }) ?? true {
                return .rejected("the provider said this pushkey is dead")
            }
        }
        let platform = self.platform(of: route)
        // Sygnal's WebPush pushkin ignores a default payload that is no object; the others reject it.
        guard platform == .webPush || device.hasUsableDefaultPayload else { return .rejected("data.default_payload is not an object") }
        let push: PushNotification
        switch self.notification(for: device, of: notification, route: route, platform: platform) {
        case .push(let built): push = built
        case .nothing: return .skipped
        case .refused(let result): return result
        }
        // Badge-only updates carry no event: they are idempotent and always sent.
        guard let event = notification.eventID, !event.isEmpty else { return await self.send(push, pushkeyID: pushkeyID, now: now) }
        let eventID = Array(SHA256.hash(data: pushkeyID + Array(event.utf8)))
        return await self.once(eventID, now: now) { await self.send(push, pushkeyID: pushkeyID, now: now) }
    }

    enum Built {
        case push(PushNotification)
        case nothing
        case refused(DeviceResult)
    }

    /// The provider a route names, else the app's APNs, FCM or Web Push provider, in that order.
    private func platform(of route: MatrixAppRoute) -> Platform {
        switch route.platform {
        case .apns?: return .apns
        case .fcm?: return .fcm
        case .webpush?: return .webPush
        case nil:
            return [Platform.apns, .fcm, .webPush].first { self.providers.provider(app: route.app, platform: $0) != nil } ?? .fcm
        }
    }

    private func notification(for device: MatrixNotification.Device, of notification: MatrixNotification, route: MatrixAppRoute, platform: Platform) -> Built {
        var push: PushNotification
        if platform == .webPush {
            return Self.webPush(for: device, of: notification, app: route.app, deadline: self.configuration.deadline)
        }
        if platform == .apns {
            guard let token = MatrixPushkey.apnsToken(device.pushkey) else { return .refused(.rejected("the pushkey is not the base64 of an APNs token")) }
            guard let payload = MatrixAPNSPayload.build(notification, device: device) else { return .nothing }
            guard let bytes = MatrixAPNSPayload.bytes(payload) else {
                return .refused(.failed("the payload is over 4096 bytes and has no alert text to shorten"))
            }
            push = PushNotification(id: RandomUUID.lowercased(), device: Device(platform: .apns, token: token, app: route.app), payload: bytes)
            push.pushType = self.configuration.apnsPushType
        } else {
            guard let fields = MatrixFCMData.build(notification, device: device) else { return .nothing }
            push = PushNotification(id: RandomUUID.lowercased(), device: Device(platform: .fcm, token: device.pushkey, app: route.app), payload: JSONValue.object(fields).bytes)
        }
        push.priority = notification.isLowPriority ? .powerConsiderate : .immediate
        push.deadline = self.configuration.deadline
        return .push(push)
    }

    /// A Web Push pusher's push as Sygnal's WebPush pushkin makes it (docs/matrix-push-facts.md
    /// §5): the pushkey is the subscription's `p256dh`, beside `data.endpoint` and `data.auth`.
    static func webPush(for device: MatrixNotification.Device, of notification: MatrixNotification, app: String, deadline: Duration) -> Built {
        let data = OrderedObject(.object(device.data))
        // A pusher that wants events only gets no badge-only update.
        if data["events_only"] == .bool(true), (notification.eventID ?? "").isEmpty { return .nothing }
        guard !device.pushkey.isEmpty, case .string(let endpoint)? = data["endpoint"], case .string(let auth)? = data["auth"] else {
            return .refused(.rejected("a Web Push pusher needs a pushkey (p256dh), data.endpoint and data.auth as strings"))
        }
        // An endpoint Herald will not send to (not https, user information) is dropped, as Sygnal
        // drops one off its allow-list: the pusher may be fine for another gateway.
        guard let endpoint = try? WebPushSubscription.Endpoint(endpoint) else { return .refused(.skipped) }
        let subscription: WebPushSubscription
        do {
            subscription = try WebPushSubscription(endpoint: endpoint, p256dh: device.pushkey, auth: auth)
        } catch {
            // Sygnal answers 500 and the homeserver retries for a day; no retry can make these keys work.
            return .refused(.rejected("the pusher is no Web Push subscription: \(error)"))
        }
        guard let bytes = MatrixWebPushPayload.bytes(MatrixWebPushPayload.build(notification, device: device)) else {
            return .refused(.skipped)
        }
        var push = PushNotification(id: RandomUUID.lowercased(), device: Device(platform: .webPush, token: subscription.token, app: app), payload: bytes)
        // Sygnal's Urgency: low only for a low-priority notification.
        push.priority = notification.isLowPriority ? .powerFirst : .powerConsiderate
        if data["only_last_per_room"] == .bool(true), let room = notification.roomID, !room.isEmpty { push.collapseID = room }
        push.deadline = deadline
        return .push(push)
    }

    private func send(_ push: PushNotification, pushkeyID: [UInt8], now: UInt64) async -> DeviceResult {
        let outcome: DeliveryOutcome
        do {
            outcome = try await self.providers.send(push)
        } catch {
            return .failed("not admitted: \(error.message)")
        }
        // An endpoint the operator does not allow, a message the push service refused, a
        // subscription made for another VAPID key: no retry helps and the pusher is not dead, so
        // nothing is pushed and nothing rejected, as Sygnal does.
        if push.device.platform == .webPush, case .rejected = outcome { return .skipped }
        if push.device.platform == .webPush, outcome.failure?.code == .credentials { return .skipped }
        switch outcome {
        case .delivered:
            return .pushed
        case .deadToken(let failure):
            let learned = withUnsafeBytes(of: now.bigEndian, Array.init)
            try? await self.markers.replace(pushkeyID, in: self.configuration.deadPushkeys, expiry: now + self.configuration.deadPushkeys.ttlSeconds, value: learned)
            return .rejected(failure.description)
        case .rejected(let failure), .failed(let failure):
            // Not the token's fault (the payload, the credentials, a provider in trouble): the
            // homeserver retries, and the pusher stays.
            return .failed(failure.description)
        }
    }

    /// Runs `push` once per event and pushkey: a repeat after it pushed is answered pushed, one
    /// after a rejection rejected, one while it runs waits for its end; a failure forgets the
    /// event, so the homeserver's retry pushes.
    private func once(_ id: [UInt8], now: UInt64, _ push: () async -> DeviceResult) async -> DeviceResult {
        let namespace = self.configuration.deliveredEvents
        let claimed = (try? await self.markers.insert(id, in: namespace, expiry: now + Self.claimSeconds, now: now, value: [State.inFlight.rawValue])) ?? true
        if !claimed {
            return await self.earlier(id, now: now)
        }
        let result = await push()
        switch result {
        case .pushed, .skipped:
            try? await self.markers.replace(id, in: namespace, expiry: now + namespace.ttlSeconds, value: [State.pushed.rawValue])
        case .rejected:
            try? await self.markers.replace(id, in: namespace, expiry: now + namespace.ttlSeconds, value: [State.rejected.rawValue])
        case .failed:
            try? await self.markers.remove(id, in: namespace)
        }
        return result
    }

    /// What the first request for an event ended in, waiting (within the deadline) while it runs.
    private func earlier(_ id: [UInt8], now: UInt64) async -> DeviceResult {
        let started = ContinuousClock.now
        while ContinuousClock.now - started < self.configuration.deadline {
            let current = UInt64(max(self.wallClock().timeIntervalSince1970, 0))
            switch (try? self.markers.value(of: id, in: self.configuration.deliveredEvents, now: current))?.first.flatMap(State.init(rawValue:)) {
            case .pushed?: return .pushed
            case .rejected?: return .rejected("an earlier request for this event was rejected")
            case .inFlight?: try? await Task.sleep(for: .milliseconds(100))
            case nil: return .failed("an earlier request for this event failed; retry")
            }
        }
        return .failed("an earlier request for this event is still being pushed; retry")
    }

    private enum State: UInt8 {
        case inFlight = 0
        case pushed = 1
        case rejected = 2
    }

    /// How long a claim holds while its push runs: past the deadline, a node that died mid-push
    /// frees it.
    static let claimSeconds: UInt64 = 120
}

extension MatrixConfiguration {
    /// Events pushed to a pushkey (by hash), with how they ended.
    public var deliveredEvents: MessageMarkers.Namespace {
        MessageMarkers.Namespace(7, name: "matrix-event", ttl: self.deduplicationWindow)
    }

    /// Pushkeys a provider declared dead (by hash), with when.
    public var deadPushkeys: MessageMarkers.Namespace {
        MessageMarkers.Namespace(8, name: "matrix-dead-pushkey", ttl: self.deadPushkeyWindow)
    }
}

extension MessageMarkers.Namespace {
    var ttlSeconds: UInt64 { UInt64(max(self.ttl.components.seconds, 1)) }
}
