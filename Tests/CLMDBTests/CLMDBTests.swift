import CLMDB
import Foundation
import Testing

@Suite struct CLMDBTests {
    @Test func linkedLibraryIsLMDB09() {
        var major: Int32 = 0
        var minor: Int32 = 0
        var patch: Int32 = 0
        let version = String(cString: mdb_version(&major, &minor, &patch))
        #expect(version.hasPrefix("LMDB"))
        #expect(major == 0 && minor == 9)
    }

    @Test func strerrorDescribesMapFull() {
        #expect(String(cString: mdb_strerror(MDB_MAP_FULL)).contains("MDB_MAP_FULL"))
    }
}
