import ArgumentParser
import Foundation
import Testing
import VideoFiles
@testable import landmarker

/// `OutputPlan`: the files a `pose`/`hand` run writes, and the refusals of outputs that would
/// collide, overwrite an input, say another format or go where nothing can be written.
@Suite struct OutputPlanTests {
    /// A temporary folder holding `a/x.jpg`, `b/x.png`, `b/y.jpg`, `in.png` and `file` (empty
    /// files: the plan reads no image); removed by `remove()`.
    private struct Folder {
        let path: String

        init() throws {
            path = FileManager.default.temporaryDirectory
                .appendingPathComponent("landmarker-plan-\(UInt64.random(in: 0...UInt64.max))").path
            for folder in ["a", "b"] {
                try FileManager.default.createDirectory(atPath: path + "/" + folder, withIntermediateDirectories: true)
            }
            for file in ["a/x.jpg", "b/x.png", "b/y.jpg", "in.png", "file"] {
                _ = FileManager.default.createFile(atPath: path + "/" + file, contents: Data())
            }
        }

        /// The absolute path of `name` in the folder.
        subscript(_ name: String) -> String { path + "/" + name }

        func remove() {
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// The message of the usage error `body` throws; fails the test when it throws none.
    private func refusal(_ body: () throws -> Void) -> String {
        do {
            try body()
        } catch let error as ValidationError {
            return error.message
        } catch {
            Issue.record("not a usage error: \(error)")
            return ""
        }
        Issue.record("no usage error")
        return ""
    }

    private func plan(_ choice: InputChoice, _ requests: [OutputKind: String], keepPaths: Bool = false) throws -> OutputPlan {
        try OutputPlan(for: choice, requests: requests, keepPaths: keepPaths)
    }

    @Test func batchNamesOutputsByImageName() throws {
        let f = try Folder()
        defer { f.remove() }
        let plan = try plan(.images([f["a/x.jpg"], f["b/y.jpg"]]), [.annotate: f["out"], .mask: f["masks"] + "/"])
        #expect(plan.path(.annotate, for: f["a/x.jpg"]) == f["out/x.png"])
        #expect(plan.path(.mask, for: f["b/y.jpg"]) == f["masks/y.png"])
        #expect(plan.outputs.count == 4)
    }

    @Test func batchWithSameImageNamesIsRefusedUnlessKeepPaths() throws {
        let f = try Folder()
        defer { f.remove() }
        let message = refusal { _ = try plan(.images([f["a/x.jpg"], f["b/x.png"]]), [.annotate: f["out"]]) }
        #expect(message.contains(f["a/x.jpg"]) && message.contains(f["b/x.png"]) && message.contains(f["out/x.png"]))
        #expect(message.contains("--keep-paths"))
        let kept = try plan(.images([f["a/x.jpg"], f["b/x.png"]]), [.annotate: f["out"]], keepPaths: true)
        #expect(kept.path(.annotate, for: f["a/x.jpg"]) == f["out/a/x.png"])
        #expect(kept.path(.annotate, for: f["b/x.png"]) == f["out/b/x.png"])
        // Only the folders below the images' common one are kept.
        let one = try plan(.images([f["b/x.png"], f["b/y.jpg"]]), [.annotate: f["out"]], keepPaths: true)
        #expect(one.path(.annotate, for: f["b/y.jpg"]) == f["out/y.png"])
    }

    @Test func outputThatIsAnInputIsRefused() throws {
        let f = try Folder()
        defer { f.remove() }
        let direct = refusal { _ = try plan(.images([f["in.png"]]), [.annotate: f["a/../in.png"]]) }
        #expect(direct.contains("--annotate \(f["a/../in.png"]) would overwrite the input \(f["in.png"])"))
        try FileManager.default.createSymbolicLink(atPath: f["link.png"], withDestinationPath: "in.png")
        let linked = refusal { _ = try plan(.images([f["in.png"]]), [.mask: f["link.png"]]) }
        #expect(linked.contains("overwrite the input"))
        // A batch written into the images' own folder would replace b/x.png.
        let batch = refusal { _ = try plan(.images([f["b/x.png"], f["b/y.jpg"]]), [.annotate: f["b"]]) }
        #expect(batch.contains("overwrite the input \(f["b/x.png"])"))
        let video = refusal { _ = try plan(.video(f["a"] + "/v.mp4"), [.annotate: f["a/./v.mp4"]]) }
        #expect(video.contains("overwrite the input"))
    }

    @Test func twoOptionsNamingOneFileAreRefused() throws {
        let f = try Folder()
        defer { f.remove() }
        let single = refusal { _ = try plan(.images([f["in.png"]]), [.annotate: f["X.png"], .mask: f["./X.png"]]) }
        #expect(single.contains("--annotate \(f["X.png"]) and --mask \(f["./X.png"])"))
        let batch = refusal { _ = try plan(.images([f["a/x.jpg"], f["b/y.jpg"]]), [.annotate: f["D"], .mask: f["D"]]) }
        #expect(batch.contains("--annotate \(f["D"]) and --mask \(f["D"]) would both write \(f["D/x.png"])"))
        let video = refusal { _ = try plan(.video(f["a"]), [.annotate: f["v.mp4"], .mask: f["a/../v.mp4"]]) }
        #expect(video.contains("--annotate \(f["v.mp4"])") && video.contains("--mask \(f["a/../v.mp4"])"))
    }

    @Test func extensionsMustSayTheFormatWritten() throws {
        let f = try Folder()
        defer { f.remove() }
        #expect(refusal { _ = try plan(.images([f["in.png"]]), [.annotate: f["out.jpg"]]) }.contains("says another format"))
        #expect(refusal { _ = try plan(.video(f["a"]), [.annotate: f["out.png"]]) }.contains("video file"))
        #expect(refusal { _ = try plan(.images([f["a/x.jpg"], f["b/y.jpg"]]), [.annotate: f["out.png"]]) }
            .contains("names a folder"))
        #expect(refusal { _ = try plan(.images([f["in.png"]]), [.annotate: f["a"]]) }.contains("is a folder"))
        _ = try plan(.video(f["a"]), [.annotate: f["out.MKV"], .mask: f["mask.webm"]])
        _ = try plan(.images([f["in.png"]]), [.annotate: f["new/folder/out.PNG"]])
    }

    @Test func foldersThatCannotBeCreatedOrWrittenAreRefused() throws {
        let f = try Folder()
        defer { f.remove() }
        let underFile = refusal { _ = try plan(.images([f["a/x.jpg"], f["b/y.jpg"]]), [.annotate: f["file/sub"]]) }
        #expect(underFile.contains("--annotate \(f["file/sub"])") && underFile.contains("\(f["file"]) is a file"))
        #expect(throws: ValidationError.self) { try OutputPlan.checkWritableFolder(f["file"], option: "--out") }
        try OutputPlan.checkWritableFolder(f["not/yet/there"], option: "--out")
        // Permissions do not bind the superuser.
        if getuid() != 0 {
            try FileManager.default.createDirectory(atPath: f["locked"], withIntermediateDirectories: false)
            chmod(f["locked"], 0o555)
            defer { chmod(f["locked"], 0o755) }
            let locked = refusal { _ = try plan(.images([f["in.png"]]), [.annotate: f["locked/o.png"]]) }
            #expect(locked.contains("\(f["locked"]) cannot be written"))
        }
    }

    @Test func keepPathsOnlyForSeveralImagesWithAFileOption() throws {
        let f = try Folder()
        defer { f.remove() }
        #expect(throws: ValidationError.self) { _ = try plan(.images([f["in.png"]]), [.annotate: f["o.png"]], keepPaths: true) }
        #expect(throws: ValidationError.self) { _ = try plan(.video(f["a"]), [:], keepPaths: true) }
        #expect(throws: ValidationError.self) { _ = try plan(.images([f["in.png"], f["a/x.jpg"]]), [:], keepPaths: true) }
    }

    @Test func stalePartialFilesOfDeadProcessesAreRemoved() throws {
        let f = try Folder()
        defer { f.remove() }
        let output = f["out.mp4"]
        // A process id above the kernel's maximum (4194304) belongs to no process.
        let dead = PartialFileName.path(for: output, processID: 9_999_999)
        let alive = PartialFileName.path(for: output, processID: getpid() == 1 ? 2 : 1)
        let other = PartialFileName.path(for: f["other.mp4"], processID: 9_999_999)
        for path in [dead, alive, other] { #expect(FileManager.default.createFile(atPath: path, contents: Data())) }
        #expect(PartialFileName.writer(ofName: URL(fileURLWithPath: dead).lastPathComponent, partialOf: output) == 9_999_999)
        StalePartialFiles.remove(of: output)
        #expect(!FileManager.default.fileExists(atPath: dead))
        #expect(FileManager.default.fileExists(atPath: alive))
        #expect(FileManager.default.fileExists(atPath: other))
    }
}

/// `ExitRule`: an unknown option that another subcommand has is named as that subcommand's.
@Suite struct ExitRuleTests {
    @Test func unknownOptionNamesTheSubcommandThatHasIt() {
        do {
            _ = try Landmarker.parseAsRoot(["pose", "--lite", "x.jpg"])
            Issue.record("pose --lite parsed")
        } catch {
            let text = ExitRule.unknownOptionText(for: error, arguments: ["pose", "--lite", "x.jpg"]) ?? ""
            #expect(text.contains("Unknown option '--lite' for 'landmarker pose': an option of 'landmarker hand'"))
            #expect(!text.contains("--video"))
            #expect(Landmarker.exitCode(for: error) == .validationFailure)
        }
    }

    @Test func unknownOptionOfNoSubcommandKeepsArgumentParsersMessage() {
        do {
            _ = try Landmarker.parseAsRoot(["hand", "--fsp", "x.jpg"])
            Issue.record("hand --fsp parsed")
        } catch {
            #expect(ExitRule.unknownOptionText(for: error, arguments: ["hand", "--fsp", "x.jpg"]) == nil)
        }
    }

    @Test func usageErrorsFoundAfterParsingCarryTheSubcommandsUsage() {
        let text = ExitRule.usageErrorText("give image files", arguments: ["extract", "hand", "--out", "x"])
        #expect(text.hasPrefix("Error: give image files\nUsage: landmarker extract hand"))
        #expect(text.hasSuffix("See 'landmarker extract hand --help' for more information."))
    }
}
