/// One notification for one device, in Herald's own terms. Front doors build these from their
/// protocol; the delivery pool turns them into provider requests.
public struct PushNotification: Sendable, Hashable {
    /// How urgently the provider should deliver.
    public enum Priority: String, Sendable, Hashable {
        /// Deliver now, waking the device (APNs 10, FCM HIGH).
        case immediate
        /// Deliver when convenient for the device's power (APNs 5, FCM NORMAL).
        case powerConsiderate
        /// Never wake the device (APNs 1; FCM has no such level and uses NORMAL).
        case powerFirst
    }

    /// Canonical lower-case UUID; becomes `apns-id` and identifies the push in logs and feedback.
    public var id: String {
        get { self.box.fields.id }
        set { self.mutate { $0.id = newValue } }
    }
    public var device: Device {
        get { self.box.fields.device }
        set { self.mutate { $0.device = newValue } }
    }
    /// The provider payload as a JSON object: for APNs the whole body (`aps` and custom keys), for
    /// FCM the `message` fields other than the target, which the FCM client adds.
    public var payload: [UInt8] {
        get { self.box.fields.payload }
        set { self.mutate { $0.payload = newValue } }
    }
    public var priority: Priority? {
        get { self.box.fields.priority }
        set { self.mutate { $0.priority = newValue } }
    }
    /// Absolute UNIX time in seconds after which the provider should drop the notification;
    /// `0` means "now or never". `nil` leaves the provider's default.
    public var expiration: Int64? {
        get { self.box.fields.expiration }
        set { self.mutate { $0.expiration = newValue } }
    }
    public var collapseID: String? {
        get { self.box.fields.collapseID }
        set { self.mutate { $0.collapseID = newValue } }
    }
    /// APNs `apns-push-type`; `nil` is sent as `alert`.
    public var pushType: String? {
        get { self.box.fields.pushType }
        set { self.mutate { $0.pushType = newValue } }
    }
    /// The registration the token came from, so a dead-token answer can disable it.
    public var registration: RegistrationKey? {
        get { self.box.fields.registration }
        set { self.mutate { $0.registration = newValue } }
    }
    /// The caller's own id for the request this push came from (a request id the sender gave), echoed in
    /// feedback.
    public var callerReference: String? {
        get { self.box.fields.callerReference }
        set { self.mutate { $0.callerReference = newValue } }
    }
    /// How long delivery may take over all attempts, when less than the endpoint's own deadline:
    /// for callers that answer a sender who gives up sooner (some time out in seconds).
    public var deadline: Duration? {
        get { self.box.fields.deadline }
        set { self.mutate { $0.deadline = newValue } }
    }

    private struct Fields: Hashable {
        var id: String
        var device: Device
        var payload: [UInt8]
        var priority: Priority?
        var expiration: Int64?
        var collapseID: String?
        var pushType: String?
        var registration: RegistrationKey?
        var callerReference: String?
        var deadline: Duration?
    }

    /// The fields, held once however often the push is copied. A push is copied from layer to
    /// layer (front door, pool, provider request, feedback); copying its strings and arrays
    /// retained and released each of them every time: held in one box, a 10-token request makes
    /// 7 % fewer retains (docs/benchmarks.md).
    // Unchecked: `fields` is written only through `mutate`, which first copies the box unless
    // this value holds the only reference to it (copy-on-write, as Array does), so a box that
    // another value, on any thread, can reach is never written.
    private final class Box: @unchecked Sendable {  // Safe: written only when uniquely referenced, see above.
        var fields: Fields

        init(_ fields: Fields) {
            self.fields = fields
        }
    }

    private var box: Box

    private mutating func mutate(_ change: (inout Fields) -> Void) {
        if !isKnownUniquelyReferenced(&self.box) { self.box = Box(self.box.fields) }
        change(&self.box.fields)
    }

    public static func == (lhs: PushNotification, rhs: PushNotification) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.box.fields)
    }

    public init(
        id: String,
        device: Device,
        payload: [UInt8],
        priority: Priority? = nil,
        expiration: Int64? = nil,
        collapseID: String? = nil,
        pushType: String? = nil,
        registration: RegistrationKey? = nil,
        callerReference: String? = nil
    ) {
        self.box = Box(
            Fields(
                id: id,
                device: device,
                payload: payload,
                priority: priority,
                expiration: expiration,
                collapseID: collapseID,
                pushType: pushType,
                registration: registration,
                callerReference: callerReference,
                deadline: nil
            )
        )
    }
}
