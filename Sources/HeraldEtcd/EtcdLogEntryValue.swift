import HeraldStore
import HeraldCore

/// The value of one etcd log key: the commands one transaction appended to one partition, in
/// order. They share the transaction's revision as their log position.
struct EtcdLogEntryValue: StoreCodable {
    static let formatVersion: UInt8 = 1

    var commands: [RegistryCommand]

    func encode(into writer: inout BinaryWriter) {
        writer.write(UInt32(self.commands.count))
        for command in self.commands { writer.writeBlob(command.encoded()) }
    }

    static func decode(from reader: inout BinaryReader, formatVersion: UInt8) throws(StoreError) -> EtcdLogEntryValue {
        let count = try reader.read(UInt32.self)
        var commands: [RegistryCommand] = []
        for _ in 0..<count {
            commands.append(try RegistryCommand.decoded(from: try reader.readBlob()))
        }
        return EtcdLogEntryValue(commands: commands)
    }
}
