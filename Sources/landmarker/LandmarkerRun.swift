#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Pipeline

/// The input loops shared by `landmarker pose` and `landmarker hand`: image files in image
/// mode, or a video source in video mode, each result printed and written as the options ask.
struct LandmarkerRun<Result: RecordFields> {
    /// Runs the landmarker on one image (image mode).
    let detectImage: (MPImage) throws -> Result
    /// Runs the landmarker on one frame with its timestamp in milliseconds (video mode).
    let detectFrame: (MPImage, Int) throws -> Result
    /// What is printed for one image without `--json`: a count ("2 pose(s)"), printed after the
    /// image's path, then one indented line per pose or hand.
    let describe: (Result, MPImage) -> (count: String, lines: [String])
    /// Writes the image's files (annotated PNG, mask); the flag says whether several images share
    /// the output options, so that they name folders.
    let writeOutputs: (Result, MPImage, _ imagePath: String, _ multipleImages: Bool) throws -> Void

    /// Image mode over `paths`: with `json`, one pretty object (one image) or an array of them.
    func runImages(_ paths: [String], json: Bool) throws {
        var records: [ResultRecord<Result>] = []
        for path in paths {
            let image = try FrameInput.loadImage(path)
            let result = try detectImage(image)
            records.append(ResultRecord(image: path, width: image.width, height: image.height, result: result, timestampMs: nil))
            try writeOutputs(result, image, path, paths.count > 1)
            if !json {
                let description = describe(result, image)
                print(([path + ": " + description.count] + description.lines).joined(separator: "\n"))
            }
        }
        if json {
            print(try JSONOutput.encode(records.count == 1 ? AnyEncodable(records[0]) : AnyEncodable(records), pretty: true))
        }
    }

    /// Video mode over a folder of frames or a Y4M stream: one JSON line per frame, progress on
    /// standard error.
    func runVideo(_ source: String, folderFramesPerSecond fps: Double) throws {
        try FrameInput.open(source, folderFramesPerSecond: fps).forEachFrame { frame, image in
            let result = try detectFrame(image, frame.timestampMs)
            let record = ResultRecord(image: frame.name, width: image.width, height: image.height, result: result,
                                      timestampMs: frame.timestampMs)
            print(try JSONOutput.encode(record, pretty: false))
        }
    }
}

/// The keys of a `--json` record.
enum RecordKey: String, CodingKey {
    case image, width, height, handedness, landmarks, worldLandmarks, timestampMs
}

/// A result that contributes its fields (with the iOS API's names) to a `--json` record.
protocol RecordFields {
    func encodeRecordFields(into container: inout KeyedEncodingContainer<RecordKey>) throws
}

extension PoseLandmarkerResult: RecordFields {
    /// `landmarks` and `worldLandmarks` (masks go to `--mask`, not into the JSON).
    func encodeRecordFields(into container: inout KeyedEncodingContainer<RecordKey>) throws {
        try container.encode(landmarks, forKey: .landmarks)
        try container.encode(worldLandmarks, forKey: .worldLandmarks)
    }
}

extension HandLandmarkerResult: RecordFields {
    /// `handedness`, `landmarks` and `worldLandmarks`.
    func encodeRecordFields(into container: inout KeyedEncodingContainer<RecordKey>) throws {
        try container.encode(handedness, forKey: .handedness)
        try container.encode(landmarks, forKey: .landmarks)
        try container.encode(worldLandmarks, forKey: .worldLandmarks)
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
