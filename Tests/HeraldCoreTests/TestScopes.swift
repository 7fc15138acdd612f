import HeraldCore

// HeraldCore knows no front door: its tests declare scopes of their own, as a door would.
extension RegistrationScope {
    static let first = RegistrationScope(1, name: "first")
    static let second = RegistrationScope(2, name: "second")
}
