public import HeraldCore

/// Silent-sync registrations for benchmarks (`herald-dev store fill --silent-service`): device
/// `n` has the app-instance token `bench-device-<n>` and a token of its own, on FCM every
/// `fcmEvery`-th device and on APNs otherwise.
public enum SilentBenchRegistrations {
    public static func command(service: String, app: String, index: Int, fcmEvery: Int) -> RegistryCommand {
        let key = SilentRegistrations.key(service: service, deviceID: "bench-device-\(index)")
        let isFCM = fcmEvery > 0 && index % fcmEvery == 0
        let hex = String(index, radix: 16)
        let token = isFCM ? "bench\(index):APA91b" + String(repeating: "s", count: 140) : String(repeating: "0", count: 64 - hex.count) + hex
        let device = Device(platform: isFCM ? .fcm : .apns, token: token, app: app)
        return .register(Registration(key: key, version: 1, device: device, attributes: [isFCM ? 1 : 0]))
    }
}
