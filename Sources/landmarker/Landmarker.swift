import ArgumentParser

@main
struct Landmarker: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "landmarker",
        abstract: "Pose, hand and face landmark detection with a pure-Swift TensorFlow Lite runtime.",
        subcommands: [PoseCommand.self, HandCommand.self, FaceCommand.self, HolisticCommand.self, ExtractCommand.self, InspectCommand.self, RunCommand.self, BenchCommand.self,
                      PipelineBenchCommand.self, SoakCommand.self])

    @Flag(help: "Print the version, the commit it was built from, the kernel family chosen on this CPU and the model folder.")
    var version = false

    /// Runs the command the arguments name, with interrupts handled (`PartialFiles`) and every
    /// error reported by the CLI's one rule (`ExitRule`).
    static func main() {
        PartialFiles.shared.handleInterrupts()
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch {
            ExitRule.exit(with: error, arguments: arguments)
        }
    }

    func run() throws {
        guard version else { throw CleanExit.helpRequest(self) }
        print(VersionReport.text())
    }
}
