import Foundation
import PackagePlugin

/// Writes the commit Herald is built from into `HeraldBuildInfo` before every build. SwiftPM has
/// no flag that injects a string, and a file written by a packaging script would be a change
/// in the tree; git is asked at build time instead (scripts/build-info.sh).
@main
struct HeraldBuildInfoPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "Generated")
        let script = context.package.directoryURL.appending(path: "scripts/build-info.sh")
        return [
            .prebuildCommand(
                displayName: "Herald's commit",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, context.package.directoryURL.path, output.path],
                outputFilesDirectory: output
            )
        ]
    }
}
