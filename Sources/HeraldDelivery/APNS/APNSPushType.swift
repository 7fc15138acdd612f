/// The `apns-push-type` values APNs accepts, with the topic suffix and payload limit of each.
public enum APNSPushType: String, Sendable, CaseIterable {
    case alert, background, voip, complication, fileprovider, liveactivity, location, mdm, pushtotalk, widgets, controls

    /// What APNs expects after the bundle id in `apns-topic` for this type.
    public var topicSuffix: String {
        switch self {
        case .alert, .background, .mdm: ""
        case .voip: ".voip"
        case .complication: ".complication"
        case .fileprovider: ".pushkit.fileprovider"
        case .liveactivity: ".push-type.liveactivity"
        case .location: ".location-query"
        case .pushtotalk: ".voip-ptt"
        case .widgets: ".push-type.widgets"
        case .controls: ".push-type.controls"
        }
    }

    /// Largest payload APNs accepts for this type, in bytes.
    public var payloadLimit: Int { self == .voip ? 5120 : 4096 }
}
