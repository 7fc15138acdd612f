public import HeraldCore

/// Told about every push whose token the provider declared dead. The server wires one that
/// disables the registration (a registry command) and, when configured, one that posts the
/// feedback webhook.
public protocol DeadTokenHandler: Sendable {
    func tokenIsDead(_ notification: PushNotification, reason: String) async
}
