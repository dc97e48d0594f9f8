import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import ImageIO
import MediaPipeTasksVision
import VideoFiles

/// The input loops shared by `landmarker pose` and `landmarker hand`: image files in image
/// mode, or a video in video mode, each result printed and written as the options ask.
struct LandmarkerRun<Result: RecordFields> {
    /// Runs the landmarker on one image (image mode).
    let detectImage: (MPImage) throws -> Result
    /// Runs the landmarker on one frame with its timestamp in microseconds (video mode).
    let detectFrame: (MPImage, Int64) throws -> Result
    /// What is printed for one image or frame without `--json`: a count ("2 pose(s)"), printed
    /// after the image's name, then one indented line per pose or hand.
    let describe: (Result, MPImage) -> (count: String, lines: [String])
    /// The upright image with the result drawn over it (`--annotate`).
    let draw: (Result, MPImage) -> RGBImage
    /// The segmentation mask's grey pixels, upright image size (`--mask`); nil where the task
    /// has no mask.
    let maskPixels: ((Result, MPImage) -> [UInt8])?

    /// Image mode over `paths`. One image: its result, as one pretty JSON object with `json`.
    /// Several: one line per image as soon as it is done (a compact JSON object with `json`).
    /// An image that fails gives its message on standard error and, with `json`, an object with
    /// an `error` field in its place; a batch goes on, and the exit status is 1 when any failed.
    /// The files `outputs` names for an image are written once it is done (PNG).
    func runImages(_ paths: [String], json: Bool, outputs: OutputPlan) throws {
        let single = paths.count == 1
        var failures = 0
        for path in paths {
            do {
                let image = try FrameInput.loadImage(path)
                let result = try detectImage(image)
                if let annotate = outputs.path(.annotate, for: path) {
                    try AnnotatedOutput.write(draw(result, image), to: annotate)
                }
                if let mask = outputs.path(.mask, for: path), let maskPixels {
                    try AnnotatedOutput.writeGray(maskPixels(result, image), width: image.width, height: image.height, to: mask)
                }
                let record = ResultRecord(image: path, width: image.width, height: image.height, result: result, timestampMs: nil)
                if json {
                    printLine(try JSONOutput.encode(record, pretty: single))
                } else {
                    let description = describe(result, image)
                    printLine(([path + ": " + description.count] + description.lines).joined(separator: "\n"))
                }
            } catch {
                failures += 1
                let message = (error as? CommandFailure)?.message ?? "\(path): \(errorText(error))"
                printError("landmarker: \(message)")
                if json { printLine(try JSONOutput.encode(ImageFailureRecord(image: path, error: message), pretty: single)) }
            }
        }
        if failures > 0 {
            if !single { printError("landmarker: \(failures) of \(paths.count) images failed") }
            throw ExitCode.failure
        }
    }

    /// Video mode over a video file, a Y4M stream or a folder of frames: one line per frame (a
    /// compact JSON object with `json`), progress on standard error unless `quiet`, and the
    /// videos `outputs` names, of the drawn frames / of the masks (through ffmpeg, at the
    /// input's frame rate; the files appear only once whole).
    ///
    /// An input without frames fails, and so does a video file that ends before its container
    /// said it would (`VideoShortfall`), its output videos never appearing, unless
    /// `allowShort`: then the run succeeds with a warning on standard error.
    func runVideo(_ source: String, folderFramesPerSecond fps: Double, folderFrameStepMicroseconds frameStepMicroseconds: Int64? = nil,
                  json: Bool, outputs: OutputPlan, quiet: Bool, allowShort: Bool) throws {
        let input = try FrameInput.open(
            source, folderFramesPerSecond: fps, folderFrameStepMicroseconds: frameStepMicroseconds,
            acceptingShortfall: allowShort)
        let annotate = outputs.path(.annotate, for: source)
        let mask = maskPixels == nil ? nil : outputs.path(.mask, for: source)
        var annotatedVideo: FFmpegVideoWriter?
        var maskVideo: FFmpegVideoWriter?
        defer {
            annotatedVideo.map(OutputFile.cancel)
            maskVideo.map(OutputFile.cancel)
        }
        do {
            try input.forEachFrame(quiet: quiet) { frame, image in
                let result = try detectFrame(image, frame.timestampMicroseconds)
                if json {
                    let record = ResultRecord(image: frame.name, width: image.width, height: image.height, result: result,
                                              timestampMs: frame.timestampMs)
                    printLine(try JSONOutput.encode(record, pretty: false))
                } else {
                    let description = describe(result, image)
                    printLine(([frame.name + " at \(frame.timestampMs) ms: " + description.count] + description.lines)
                        .joined(separator: "\n"))
                }
                if let annotate {
                    let canvas = draw(result, image)
                    if annotatedVideo == nil {
                        annotatedVideo = try OutputFile.startVideo(
                            at: annotate, width: canvas.width, height: canvas.height,
                            framesPerSecond: input.framesPerSecond, layout: .rgb24)
                    }
                    try annotatedVideo?.write(canvas.pixels)
                }
                if let mask, let maskPixels {
                    if maskVideo == nil {
                        maskVideo = try OutputFile.startVideo(
                            at: mask, width: image.width, height: image.height,
                            framesPerSecond: input.framesPerSecond, layout: .gray8)
                    }
                    try maskVideo?.write(maskPixels(result, image))
                }
            }
            try annotatedVideo.map(OutputFile.finish)
            try maskVideo.map(OutputFile.finish)
            if let shortfall = input.shortfall {
                printError("landmarker: warning: \(source): \(shortfall); accepted (--allow-short)")
            }
        } catch let error as VideoFileError {
            throw CommandFailure(error.description)
        }
    }
}

/// ", track 3" for pose or hand `index` of a result with track ids (video mode); "" without.
func trackDescription(_ trackIds: [Int]?, _ index: Int) -> String {
    guard let trackIds, trackIds.indices.contains(index) else { return "" }
    return ", track \(trackIds[index])"
}

/// Prints a line to standard output and flushes it, so that a reader sees each result as soon
/// as it is done.
func printLine(_ line: String) {
    print(line)
    fflush(nil)  // all open output streams, standard output among them
}

/// The `--json` line of an image that failed in a batch.
struct ImageFailureRecord: Encodable {
    let image: String
    let error: String
}

/// The keys of a `--json` record.
enum RecordKey: String, CodingKey {
    case image, width, height, handedness, landmarks, worldLandmarks, trackIds, people, timestampMs
}

/// A result that contributes its fields (with the iOS API's names) to a `--json` record.
protocol RecordFields {
    func encodeRecordFields(into container: inout KeyedEncodingContainer<RecordKey>) throws
}

extension PoseLandmarkerResult: RecordFields {
    /// `landmarks`, `worldLandmarks` and, in video mode, `trackIds` (masks go to `--mask`, not
    /// into the JSON).
    func encodeRecordFields(into container: inout KeyedEncodingContainer<RecordKey>) throws {
        try container.encode(landmarks, forKey: .landmarks)
        try container.encode(worldLandmarks, forKey: .worldLandmarks)
        try container.encodeIfPresent(trackIds, forKey: .trackIds)
    }
}

extension HandLandmarkerResult: RecordFields {
    /// `handedness`, `landmarks`, `worldLandmarks` and, in video mode, `trackIds`.
    func encodeRecordFields(into container: inout KeyedEncodingContainer<RecordKey>) throws {
        try container.encode(handedness, forKey: .handedness)
        try container.encode(landmarks, forKey: .landmarks)
        try container.encode(worldLandmarks, forKey: .worldLandmarks)
        try container.encodeIfPresent(trackIds, forKey: .trackIds)
    }
}

extension FaceLandmarkerResult: RecordFields {
    /// `landmarks` (the face landmarks: one list of 468 or 478 per face) and, in video mode,
    /// `trackIds`.
    func encodeRecordFields(into container: inout KeyedEncodingContainer<RecordKey>) throws {
        try container.encode(faceLandmarks, forKey: .landmarks)
        try container.encodeIfPresent(trackIds, forKey: .trackIds)
    }
}

extension HolisticLandmarkerResult: RecordFields {
    /// `people`: one object per person with `poseLandmarks`, `poseWorldLandmarks`,
    /// `faceLandmarks`, `leftHandLandmarks`, `leftHandWorldLandmarks`, `rightHandLandmarks` and
    /// `rightHandWorldLandmarks` (null where the part was not found; left is the person's left)
    /// and, in video mode, `trackId`.
    func encodeRecordFields(into container: inout KeyedEncodingContainer<RecordKey>) throws {
        try container.encode(poseLandmarks.indices.map { HolisticPersonRecord(self, person: $0) }, forKey: .people)
    }
}

/// One person of a holistic `--json` record.
struct HolisticPersonRecord: Encodable {
    let poseLandmarks: [NormalizedLandmark]
    let poseWorldLandmarks: [Landmark]
    let faceLandmarks: [NormalizedLandmark]?
    let leftHandLandmarks: [NormalizedLandmark]?
    let leftHandWorldLandmarks: [Landmark]?
    let rightHandLandmarks: [NormalizedLandmark]?
    let rightHandWorldLandmarks: [Landmark]?
    let trackId: Int?

    init(_ result: HolisticLandmarkerResult, person index: Int) {
        func found<Point>(_ parts: [[Point]]) -> [Point]? { parts[index].isEmpty ? nil : parts[index] }
        poseLandmarks = result.poseLandmarks[index]
        poseWorldLandmarks = result.poseWorldLandmarks[index]
        faceLandmarks = found(result.faceLandmarks)
        leftHandLandmarks = found(result.leftHandLandmarks)
        leftHandWorldLandmarks = found(result.leftHandWorldLandmarks)
        rightHandLandmarks = found(result.rightHandLandmarks)
        rightHandWorldLandmarks = found(result.rightHandWorldLandmarks)
        trackId = result.trackIds.flatMap { $0.indices.contains(index) ? $0[index] : nil }
    }

    enum CodingKeys: String, CodingKey {
        case poseLandmarks, poseWorldLandmarks, faceLandmarks, leftHandLandmarks, leftHandWorldLandmarks
        case rightHandLandmarks, rightHandWorldLandmarks, trackId
    }

    /// Missing parts are written as null, not left out; `trackId` only in video mode.
    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(poseLandmarks, forKey: .poseLandmarks)
        try container.encode(poseWorldLandmarks, forKey: .poseWorldLandmarks)
        try container.encode(faceLandmarks, forKey: .faceLandmarks)
        try container.encode(leftHandLandmarks, forKey: .leftHandLandmarks)
        try container.encode(leftHandWorldLandmarks, forKey: .leftHandWorldLandmarks)
        try container.encode(rightHandLandmarks, forKey: .rightHandLandmarks)
        try container.encode(rightHandWorldLandmarks, forKey: .rightHandWorldLandmarks)
        try container.encodeIfPresent(trackId, forKey: .trackId)
    }
}

/// One object (image) or line (video frame) of `--json`: the result's fields, plus the image's
/// name and size in pixels and, for video, the frame's timestamp in milliseconds.
struct ResultRecord<Result: RecordFields>: Encodable {
    let image: String
    let width: Int
    let height: Int
    let result: Result
    let timestampMs: Int?

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: RecordKey.self)
        try container.encode(image, forKey: .image)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try result.encodeRecordFields(into: &container)
        try container.encodeIfPresent(timestampMs, forKey: .timestampMs)
    }
}
