import FuzzSupport
import HeraldSilent

// NotifyMe registrations (`/v1/register`, `/v3/register`; silent-sync.md §1). The first byte
// picks the content type the rest is sent as: the protobuf PushRegistration, its proto3 JSON
// form, or a content type with parameters. A registration taken must survive the JSON Herald
// forwards to the partition's owner in a cluster.

enum Fixture {
    static let contentTypes = ["application/x-protobuf", "application/json", "application/protobuf", "Application/JSON; charset=utf-8"]
}

runFuzzer { buffer in
    var input = FuzzInput(buffer)
    let contentType = Fixture.contentTypes[Int(input.byte()) % Fixture.contentTypes.count]
    guard let registration = try? SilentRegistrationRequest(body: input.rest(), contentType: contentType) else { return }
    require(registration.deviceID.utf8.count <= SilentRegistrationRequest.maximumDeviceIDLength, "a deviceId over the limit was taken")
    let forwarded = try? SilentRegistrationRequest(body: registration.json, contentType: "application/json")
    require(forwarded == registration, "a registration changed through the JSON forwarded in a cluster: \(String(decoding: registration.json, as: UTF8.self))")
}
