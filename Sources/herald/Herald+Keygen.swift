import ArgumentParser
import HeraldCore
import HeraldCrypto
import HeraldStatus

extension Herald {
    struct Keygen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a new Status server identity key and print its public key.",
            discussion: """
                Writes a fresh secp256k1 private key as hex to --out (mode 0600; an existing file is \
                never overwritten). Point status.identity-key-file at it. Status clients register \
                against the printed public key, so keep the file: a new key means every client \
                must register again.
                """
        )

        @Option(help: "Where to write the private key.") var out: String = "herald-status.key"

        func run() async throws {
            let key = Secp256k1PrivateKey()
            try StatusIdentity.write(key, toFile: self.out)
            let identity = StatusIdentity(privateKey: key)
            print("wrote \(self.out)")
            print("public key: 0x\(Hex.encode(identity.publicKey.uncompressedRepresentation))")
            print("compressed: 0x\(Hex.encode(identity.publicKey.compressedRepresentation))")
            print("registration topic: \(identity.personalTopic)  push topic: \(identity.partitionedTopic)")
        }
    }
}
