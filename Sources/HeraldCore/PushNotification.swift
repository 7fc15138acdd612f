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
    public var id: String
    public var device: Device
    /// The provider payload as a JSON object: for APNs the whole body (`aps` and custom keys), for
    /// FCM the `message` fields other than the target, which the FCM client adds.
    public var payload: [UInt8]
    public var priority: Priority?
    /// Absolute UNIX time in seconds after which the provider should drop the notification;
    /// `0` means "now or never". `nil` leaves the provider's default.
    public var expiration: Int64?
    public var collapseID: String?
    /// APNs `apns-push-type`; `nil` is sent as `alert`.
    public var pushType: String?
    /// The registration the token came from, so a dead-token answer can disable it.
    public var registration: RegistrationKey?
    /// The caller's own id for the request this push came from (a request id the sender gave), echoed in
    /// feedback.
    public var callerReference: String?
    /// How long delivery may take over all attempts, when less than the endpoint's own deadline:
    /// for callers that answer a sender who gives up sooner (some time out in seconds).
    public var deadline: Duration?

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
        self.id = id
        self.device = device
        self.payload = payload
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.pushType = pushType
        self.registration = registration
        self.callerReference = callerReference
    }
}
