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
        // A prebuild command sees only the environment given here: HERALD_COMMIT for a build
        // outside git, HOME for git's global safe.directory (a clone owned by another user), PATH
        // to find git.
        let inherited = ProcessInfo.processInfo.environment
        var environment: [String: String] = [:]
        for name in ["HERALD_COMMIT", "HOME", "PATH"] {
            if let value = inherited[name] { environment[name] = value }
        }
        return [
            .prebuildCommand(
                displayName: "Herald's commit",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, context.package.directoryURL.path, output.path],
                environment: environment,
                outputFilesDirectory: output
            )
        ]
    }
}
