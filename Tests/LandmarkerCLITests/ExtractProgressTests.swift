import Foundation
import Testing
@testable import landmarker

/// Progress within each entry of `landmarker extract`, as `landmarker pose VIDEO` reports it
/// (`ProgressReport`): frames done of the total, frames per second and the time left, labelled
/// with the entry; lines in a log, one line rewritten in place on a terminal; nothing with
/// `--quiet`.
@Suite struct ExtractProgressTests {
    /// Runs an extraction of a 4-frame folder (30 fps) with `arguments`, reporting on
    /// `onTerminal` every time a frame is done; returns what was reported.
    private func progress(_ arguments: [String], onTerminal: Bool) throws -> String {
        let folder = try TemporaryFolder("extract-progress")
        defer { folder.remove() }
        for name in ["a", "b", "c", "d"] { try folder.writePNG("clip/\(name).png") }
        try folder.write("clip\n", to: "manifest.txt")
        var extraction = try Extraction.standIn(
            ["--manifest", folder["manifest.txt"], "--out", folder["out"]] + arguments, in: folder)
        var reported = ""
        extraction.progressOutput = ProgressReport.Output(onTerminal: onTerminal, interval: .zero) { reported += $0 }
        try extraction.runFindingNothing { usleep(2000) }
        return reported
    }

    @Test func aLogGetsALabelledLinePerReport() throws {
        let lines = try progress([], onTerminal: false).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 5, "\(lines)")  // four reports and the final line end
        for (index, line) in lines.prefix(4).enumerated() {
            let done = index + 1
            #expect(line.hasPrefix("extract: [1/1] clip: frame \(done)/4 (\(done * 25)%), "), "\(line)")
            #expect(line.contains(" frames/s"))
            #expect(done == 4 ? !line.contains(" left") : line.hasSuffix(" left"), "\(line)")
        }
        #expect(lines[4].isEmpty)
    }

    @Test func aTerminalGetsOneLineRewrittenAndClearedAtTheEnd() throws {
        let text = try progress([], onTerminal: true)
        #expect(text.hasPrefix("\r\u{1B}[Kextract: [1/1] clip: frame 1/4 (25%), "), "\(text)")
        #expect(!text.contains("\n"))
        #expect(text.hasSuffix("\r\u{1B}[K"))
        // Four reports and the clearing.
        #expect(text.components(separatedBy: "\r\u{1B}[K").count == 6, "\(text.debugDescription)")
    }

    @Test func quietSilencesIt() throws {
        #expect(try progress(["--quiet"], onTerminal: false).isEmpty)
        #expect(try progress(["--quiet"], onTerminal: true).isEmpty)
    }

    @Test func poseKeepsItsUnlabelledReportAndSummary() {
        var text = ""
        let report = ProgressReport(total: nil, quiet: false, output: .init(onTerminal: false, interval: .zero) { text += $0 })
        report.frameDone()
        report.finish()
        let lines = text.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("landmarker: frame 1, ") && lines[0].hasSuffix(" frames/s"))
        #expect(lines[1].hasPrefix("landmarker: done, 1 frames in "))
    }
}
