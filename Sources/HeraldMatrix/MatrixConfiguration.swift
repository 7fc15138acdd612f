import Foundation
public import HeraldConfig
import HeraldCore

/// The Matrix push gateway's section, `matrix.*`: which Herald app each pusher `app_id` pushes
/// through, and how long a notify may take.
public struct MatrixConfiguration: ConfigurationSectionValue {
    /// `app_id` (or a glob of them) → app, in the order given.
    public var apps: [MatrixAppRoute] = []
    /// How long one notify may take over all its devices' attempts: under Synapse's 60 s, after
    /// which it gives up on the answer and retries.
    public var deadline: Duration = .seconds(25)
    /// How long an event pushed to a device is remembered, so a homeserver retrying it is not
    /// pushed twice: Synapse retries for 24 h.
    public var deduplicationWindow: Duration = .seconds(25 * 3600)
    /// How long a pushkey a provider declared dead is answered as rejected without asking again.
    public var deadPushkeyWindow: Duration = .seconds(30 * 86_400)
    /// `apns-push-type` of the pushes (Sygnal sends none; APNs wants one).
    public var apnsPushType = "alert"

    public init() {}

    public static let section = "matrix"

    public var isEnabled: Bool { !self.apps.isEmpty }

    public static let keys: [ConfigurationKey] = [
        ConfigurationKey(
            "matrix.apps",
            .list,
            default: nil,
            help: "Pushers' `app_id`s and the app each pushes through, as `app_id=app` (or `app_id=app:apns`, `:fcm`, `:webpush` when the app has several providers; a Web Push pusher's pushkey is its subscription's `p256dh`, with `data.endpoint` and `data.auth`): `im.vector.app.ios.prod=element, im.vector.app.android=element-droid`. An `app_id` may be a glob (`*`, `?`); exact names win. Turns on `POST /_matrix/push/v1/notify`."
        ),
        ConfigurationKey(
            "matrix.deadline",
            .duration,
            default: "25s",
            help: "How long one notify request may take over all its pushes before the homeserver gets 502 and retries; below Synapse's 60 s timeout."
        ),
        ConfigurationKey(
            "matrix.dedup-window",
            .duration,
            default: "25h",
            help: "How long an event pushed to a pushkey is remembered: a homeserver retrying the request within it (Synapse retries for 24 h) is answered without a second push."
        ),
        ConfigurationKey(
            "matrix.dead-pushkey-window",
            .duration,
            default: "30d",
            help: "How long a pushkey the provider declared dead is answered as rejected without pushing, unless its pusher was registered again since (`pushkey_ts`)."
        ),
        ConfigurationKey(
            "matrix.apns-push-type",
            .oneOf(["alert", "background"]),
            default: "alert",
            help: "`apns-push-type` of Matrix pushes to APNs: `alert` for clients whose default payload shows or mutates an alert (Element), `background` for silent wake-ups."
        ),
    ]

    public init(reading section: ConfigurationSection) throws {
        var routes: [MatrixAppRoute] = []
        for item in try section.list("apps") {
            guard let route = MatrixAppRoute(item) else {
                throw section.error("apps", "'\(item)' is not app_id=app (or app_id=app:apns, app_id=app:fcm, app_id=app:webpush)")
            }
            routes.append(route)
        }
        self.apps = routes
        self.deadline = try section.duration("deadline", atLeast: .seconds(1))
        guard self.deadline < .seconds(60) else { throw section.error("deadline", "must be under 60 s, Synapse's timeout") }
        self.deduplicationWindow = try section.duration("dedup-window", atLeast: .seconds(60))
        self.deadPushkeyWindow = try section.duration("dead-pushkey-window", atLeast: .seconds(60))
        self.apnsPushType = try section.string("apns-push-type") ?? "alert"
    }
}

/// One `matrix.apps` entry.
public struct MatrixAppRoute: Sendable, Hashable {
    public enum Platform: String, Sendable, Hashable {
        case apns, fcm, webpush
    }

    public var appID: String
    public var app: String
    /// `nil`: the app's only provider.
    public var platform: Platform?

    init?(_ item: String) {
        let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        self.appID = parts[0]
        let target = parts[1].split(separator: ":", maxSplits: 1).map(String.init)
        self.app = target[0]
        if target.count == 2 {
            guard let platform = Platform(rawValue: target[1]) else { return nil }
            self.platform = platform
        }
    }

    var isGlob: Bool { Glob(self.appID).hasWildcard }

    /// Sygnal's glob: whole name, case-sensitive.
    func matches(_ appID: String) -> Bool {
        Glob(self.appID).matches(appID)
    }
}

extension [MatrixAppRoute] {
    /// The route of `appID`: the exact name, else the one glob that matches; `nil` for none or
    /// several (Sygnal rejects the pushkey of both).
    func route(for appID: String) -> MatrixAppRoute? {
        if let exact = self.first(where: { !$0.isGlob && $0.appID == appID }) { return exact }
        let globs = self.filter { $0.isGlob && $0.matches(appID) }
        return globs.count == 1 ? globs[0] : nil
    }
}
