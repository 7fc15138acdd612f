import HeraldCore
import Testing

@Suite struct ResourceExhaustionTests {
    struct Described: Error, CustomStringConvertible { let description: String }

    @Test func outOfDescriptorErrorsAreRecognisedByTheirErrno() {
        #expect(ResourceExhaustion.isOutOfFileDescriptors(Described(description: "socket(): Too many open files (errno: 24)")))
        #expect(ResourceExhaustion.isOutOfFileDescriptors(Described(description: "connect failed: [socket(): (errno: 23)]")))
        #expect(!ResourceExhaustion.isOutOfFileDescriptors(Described(description: "connection refused (errno: 111)")))
    }
}
