import ArgumentParser
import HeraldAries
import HeraldCore
import HeraldCrypto
import HeraldStatus

extension Herald {
    struct Keygen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a new identity key (Status, or DIDComm for Aries wallets) and print its public key.",
            discussion: """
                --kind status (the default) writes a fresh secp256k1 private key as hex to --out \
                (mode 0600; an existing file is never overwritten). Point status.identity-key-file at \
                it. Status clients register against the printed public key, so keep the file: a new \
                key means every client must register again. --kind didcomm writes an Ed25519 seed \
                for aries.identity-key-file and prints its verkey, which wallets pack envelopes for.
                """
        )

        enum Kind: String, ExpressibleByArgument, CaseIterable {
            case status
            case didcomm
        }

        @Option(help: "status or didcomm.") var kind: Kind = .status
        @Option(help: "Where to write the private key (default herald-status.key or herald-didcomm.key).") var out: String?

        func run() async throws {
            switch self.kind {
            case .status:
                let path = self.out ?? "herald-status.key"
                let key = Secp256k1PrivateKey()
                try StatusIdentity.write(key, toFile: path)
                let identity = StatusIdentity(privateKey: key)
                print("wrote \(path)")
                print("public key: 0x\(Hex.encode(identity.publicKey.uncompressedRepresentation))")
                print("compressed: 0x\(Hex.encode(identity.publicKey.compressedRepresentation))")
                print("registration topic: \(identity.personalTopic)  push topic: \(identity.partitionedTopic)")
            case .didcomm:
                let path = self.out ?? "herald-didcomm.key"
                let key = try DIDCommKey.create(file: path)
                print("wrote \(path)")
                print("verkey: \(key.verkeyBase58)")
            }
        }
    }
}
