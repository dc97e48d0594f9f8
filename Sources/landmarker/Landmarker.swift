import ArgumentParser

@main
struct Landmarker: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "landmarker",
        abstract: "Pose and hand landmark detection with a pure-Swift TensorFlow Lite runtime.",
        subcommands: [PoseCommand.self, HandCommand.self, InspectCommand.self, RunCommand.self, BenchCommand.self,
                      PipelineBenchCommand.self, SoakCommand.self])
}
