import HeraldCore
import HeraldStore

// The store knows no front door: its tests declare key spaces of their own, as a door would.
extension RegistrationScope {
    static let first = RegistrationScope(1, name: "first")
    static let second = RegistrationScope(3, name: "second")
}

extension MessageMarkers.Namespace {
    static let dedup = MessageMarkers.Namespace(1, name: "dedup", ttl: .seconds(60))
    static let answers = MessageMarkers.Namespace(6, name: "answers", ttl: .seconds(60))
}
