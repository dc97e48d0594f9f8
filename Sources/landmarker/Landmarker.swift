import ArgumentParser

@main
struct Landmarker: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run MediaPipe pose and hand landmark models with a pure-Swift runtime.")
}
