import ArgumentParser

@main
struct Landmarker: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "landmarker",
        abstract: "Pose and hand landmark detection with a pure-Swift TensorFlow Lite runtime.",
        subcommands: [PoseCommand.self, HandCommand.self, ExtractCommand.self, InspectCommand.self, RunCommand.self, BenchCommand.self,
                      PipelineBenchCommand.self, SoakCommand.self])

    @Flag(help: "Print the version, the commit it was built from, the kernel family chosen on this CPU and the model folder.")
    var version = false

    func run() throws {
        guard version else { throw CleanExit.helpRequest(self) }
        print(VersionReport.text())
    }
}
