import Foundation
import Pipeline
import TestSupport

/// Reads the golden fixtures (`Tests/Fixtures`, `TestSupport.Fixtures`) for the pipeline-math
/// tests. A missing file throws an error naming it, so the test fails loudly.
enum MathFixtures {
    static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(relativePath)))
    }

    /// A raw little-endian float32 file.
    static func floats(_ relativePath: String) throws -> [Float] {
        let bytes = try data(relativePath)
        return bytes.withUnsafeBytes { raw in
            (0..<(raw.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
    }

    static func json<T: Decodable>(_ type: T.Type, _ relativePath: String) throws -> T {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(type, from: data(relativePath))
    }

    /// Names of the `.json` files in a fixture folder, sorted.
    static func jsonNames(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: Fixtures.path(folder))
            .filter { $0.hasSuffix(".json") }
            .map { String($0.dropLast(5)) }
            .sorted()
    }
}

// MARK: - Legacy JSON schema (the keys these tests read)

struct FixtureImage: Decodable {
    let name: String
    let width: Int
    let height: Int
}

struct FixtureDetection: Decodable {
    struct Box: Decodable { let xmin, ymin, width, height: Float }
    struct Keypoint: Decodable { let x, y: Float }
    let score: [Float]
    let relativeBoundingBox: Box
    let relativeKeypoints: [Keypoint]

    var detection: Detection {
        Detection(
            score: score[0],
            box: RelativeBox(
                xmin: relativeBoundingBox.xmin, ymin: relativeBoundingBox.ymin,
                width: relativeBoundingBox.width, height: relativeBoundingBox.height),
            keypoints: relativeKeypoints.map { RelativePoint(x: $0.x, y: $0.y) })
    }
}

struct FixtureLandmark: Decodable {
    let x, y, z: Float
    let visibility: Float?
    let presence: Float?

    var landmark: RawLandmark {
        RawLandmark(x: x, y: y, z: z, visibility: visibility ?? 0, presence: presence ?? 0)
    }
}

struct LegacyPoseFixture: Decodable {
    struct Intermediate: Decodable {
        let poseDetection: FixtureDetection?
        let poseRectFromDetection: NormalizedRect?
        let poseRectFromLandmarks: NormalizedRect?
    }
    let image: FixtureImage
    let poseLandmarks: [FixtureLandmark]?
    let poseWorldLandmarks: [FixtureLandmark]?
    let intermediate: Intermediate
}

struct LegacyHandsFixture: Decodable {
    struct Hand: Decodable {
        struct Category: Decodable { let index: Int; let score: Float; let label: String }
        let handedness: [Category]
        let landmarks: [FixtureLandmark]
        let worldLandmarks: [FixtureLandmark]
    }
    struct Intermediate: Decodable {
        let palmDetections: [FixtureDetection]
        let handRectsFromPalmDetections: [NormalizedRect]
        let handRectsFromLandmarks: [NormalizedRect]
    }
    let image: FixtureImage
    let hands: [Hand]
    let intermediate: Intermediate
}

struct TasksHandsFixture: Decodable {
    struct Hand: Decodable {
        struct Category: Decodable { let index: Int; let score: Float; let categoryName: String }
        let handedness: [Category]
    }
    let hands: [Hand]
}

/// `|a − b| ≤ tolerance`.
func isClose(_ a: Float, _ b: Float, _ tolerance: Float) -> Bool {
    abs(a - b) <= tolerance
}

/// Largest absolute difference of the five rect fields.
func maxDifference(_ a: NormalizedRect, _ b: NormalizedRect) -> Float {
    max(abs(a.xCenter - b.xCenter), abs(a.yCenter - b.yCenter), abs(a.width - b.width),
        abs(a.height - b.height), abs(a.rotation - b.rotation))
}
