import Foundation
import Testing
@testable import ImageIO

/// Our YUV → RGB conversion against ffmpeg's, on frames that `scripts/compare_yuv_ffmpeg.sh`
/// makes with ffmpeg (which the suite itself never needs): runs only when that script sets
/// `LANDMARKER_FFMPEG_REFERENCE` to its folder, and prints one line per case and a summary.
@Suite struct FFmpegComparisonTests {
    static let directory = ProcessInfo.processInfo.environment["LANDMARKER_FFMPEG_REFERENCE"]

    /// One line of the script's manifest: a YUV frame (or a Y4M stream) and ffmpeg's RGB of it.
    struct Case {
        let name: String
        let format: String
        let width: Int
        let height: Int
        let colorSpace: YUVColorSpace
        let yuvPath: String
        let rgbPath: String

        /// ffmpeg's default conversion, or the one with accurate rounding and interpolated chroma.
        var flavour: String { name.hasSuffix("+accurate") ? "accurate" : "default" }
    }

    static func cases(in directory: String) throws -> [Case] {
        let text = try String(contentsOfFile: directory + "/manifest.tsv", encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t").map(String.init)
            try #require(fields.count == 8, "manifest line \(line)")
            let colorSpace: YUVColorSpace = switch (fields[4], fields[5]) {
            case ("bt601", "tv"): .bt601Limited
            case ("bt601", "pc"): .bt601Full
            case ("bt709", "tv"): .bt709Limited
            default: .bt709Full
            }
            return Case(
                name: fields[0], format: fields[1], width: try #require(Int(fields[2])),
                height: try #require(Int(fields[3])), colorSpace: colorSpace, yuvPath: fields[6], rgbPath: fields[7])
        }
    }

    /// Largest and mean absolute difference, and the share of values more than 1 apart.
    struct Difference {
        var largest = 0
        var sum = 0
        var overOne = 0
        var count = 0

        init() {}

        init(_ ours: [UInt8], _ theirs: [UInt8]) {
            for (a, b) in zip(ours, theirs) {
                let difference = abs(Int(a) - Int(b))
                largest = max(largest, difference)
                sum += difference
                if difference > 1 { overOne += 1 }
            }
            count = ours.count
        }

        mutating func add(_ other: Difference) {
            largest = max(largest, other.largest)
            sum += other.sum
            overOne += other.overOne
            count += other.count
        }

        var line: String {
            String(format: "max %3d  mean %.3f  >1: %6.3f %%", largest, Double(sum) / Double(max(count, 1)),
                   100 * Double(overOne) / Double(max(count, 1)))
        }
    }

    static func ours(_ testCase: Case, _ upsampling: YUVChromaUpsampling) throws -> RGBImage {
        if testCase.format == "y4m" {
            return try #require(try Y4MReader(path: testCase.yuvPath).nextFrame())
        }
        let format: YUVFormat = switch testCase.format {
        case "i420": .i420
        case "nv12": .nv12
        default: .yuyv
        }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: testCase.yuvPath)))
        return try bytes.withUnsafeBytes {
            try YUVConversion.rgbImage(
                buffer: $0, format: format, width: testCase.width, height: testCase.height,
                colorSpace: testCase.colorSpace, chromaUpsampling: upsampling)
        }
    }

    /// The statements of docs/SWIFT-API.md, "YUV frames", about these numbers (measured with ffmpeg 5.1).
    static func checkClaims(_ testCase: Case, _ upsampling: YUVChromaUpsampling, _ difference: Difference) {
        let mean = Double(difference.sum) / Double(max(difference.count, 1))
        let evenSize = testCase.width % 2 == 0 && testCase.height % 2 == 0
        guard evenSize else { return }
        // Like for like: ffmpeg's default conversion replicates chroma, as `.nearest` does;
        // the rest is its fixed-point rounding (within 3 of the BT.601/709 formulas itself).
        if testCase.format == "i420" && testCase.flavour == "default" && upsampling == .nearest {
            #expect(difference.largest <= 3, "\(testCase.name): \(difference.line)")
        }
        // The Y4M reader against ffmpeg with interpolated chroma and exact rounding.
        if testCase.format == "y4m" && testCase.flavour == "accurate" {
            #expect(mean < 0.6, "\(testCase.name): \(difference.line)")
        }
    }

    @Test(.enabled(if: directory != nil, "run by scripts/compare_yuv_ffmpeg.sh (LANDMARKER_FFMPEG_REFERENCE)"))
    func conversionsAgainstFFmpeg() throws {
        let directory = try #require(Self.directory)
        var summary: [String: Difference] = [:]
        for testCase in try Self.cases(in: directory) {
            let theirs = try [UInt8](Data(contentsOf: URL(fileURLWithPath: testCase.rgbPath)))
            // The Y4M reader upsamples chroma linearly; raw frames are converted both ways.
            let upsamplings: [YUVChromaUpsampling] = testCase.format == "y4m" ? [.linear] : [.linear, .nearest]
            for upsampling in upsamplings {
                let image = try Self.ours(testCase, upsampling)
                #expect(image.pixels.count == theirs.count, "\(testCase.name): ffmpeg wrote \(theirs.count) bytes")
                let difference = Difference(image.pixels, theirs)
                print("case \(testCase.name) \(upsampling): \(difference.line)")
                Self.checkClaims(testCase, upsampling, difference)
                let kind = testCase.format == "y4m" ? "Y4M reader" : testCase.format.uppercased()
                summary["ffmpeg \(testCase.flavour), \(kind), \(upsampling)", default: Difference()].add(difference)
            }
        }
        for key in summary.keys.sorted() {
            print("summary \(key): \(summary[key]!.line)")
        }
        #expect(!summary.isEmpty)
    }
}
