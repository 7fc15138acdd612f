public import HeraldCluster
public import HeraldDelivery
import HeraldEtcd
public import HeraldFrontDoor
import HeraldAries
import HeraldMatrix
import HeraldGorush
import HeraldSilent
import HeraldStatus
import HeraldWebPush

extension HeraldNode {
    /// The front doors a node can run, in the order they are built and their services start.
    /// A new front door is its module and one line here.
    public static let frontDoors: [any FrontDoor.Type] = [
        GorushFrontDoor.self,
        StatusFrontDoor.self,
        WebPushFrontDoor.self,
        SilentFrontDoor.self,
        AriesFrontDoor.self,
        MatrixFrontDoor.self,
    ]

    /// The providers an app can be configured with (`apps.<app>.<provider>.*`). A new provider is
    /// its type and one line here.
    public static let providers: [any ConfigurablePushProvider.Type] = [
        APNSProvider.self,
        FCMProvider.self,
        WebPushProvider.self,
    ]

    /// The service a cluster coordinates through (`cluster.*`): its shared log and membership.
    public static let clusterBackend: any ConfigurableClusterBackend.Type = EtcdBackend.self
}
