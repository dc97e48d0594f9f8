import Foundation
import Testing

@testable import MediaPipeTasksVision

@Suite("Task results")
struct TasksResultsTests {
    /// The keys of the JSON object `value` encodes to (nested objects are not inspected).
    private static func jsonKeys(of value: some Encodable) throws -> Set<String> {
        let data = try JSONEncoder().encode(value)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return Set(try #require(object).keys)
    }

    @Test("landmarks use the iOS property names as JSON keys; nil optionals are omitted")
    func landmarkKeys() throws {
        #expect(try Self.jsonKeys(of: NormalizedLandmark(x: 0.5, y: 0.25, z: -0.1, visibility: 0.9, presence: 0.8))
            == ["x", "y", "z", "visibility", "presence"])
        #expect(try Self.jsonKeys(of: NormalizedLandmark(x: 0.5, y: 0.25, z: -0.1)) == ["x", "y", "z"])
        #expect(try Self.jsonKeys(of: Landmark(x: 0.1, y: 0.2, z: 0.3, visibility: 1)) == ["x", "y", "z", "visibility"])
    }

    @Test("results use the iOS property names as JSON keys")
    func resultKeys() throws {
        let mask = Mask(width: 2, height: 1, float32Data: [0, 1])
        let pose = PoseLandmarkerResult(
            landmarks: [[NormalizedLandmark(x: 0, y: 0, z: 0)]], worldLandmarks: [[Landmark(x: 0, y: 0, z: 0)]],
            segmentationMasks: [mask], timestampInMilliseconds: 33)
        #expect(try Self.jsonKeys(of: pose)
            == ["landmarks", "worldLandmarks", "segmentationMasks", "timestampInMilliseconds"])
        let withoutMasks = PoseLandmarkerResult(
            landmarks: [], worldLandmarks: [], segmentationMasks: [], timestampInMilliseconds: 0)
        #expect(try Self.jsonKeys(of: withoutMasks)
            == ["landmarks", "worldLandmarks", "segmentationMasks", "timestampInMilliseconds"])
        #expect(try Self.jsonKeys(of: mask) == ["width", "height", "float32Data"])
        #expect(try Self.jsonKeys(of: Mask(width: 1, height: 1, uint8Data: [7])) == ["width", "height", "uint8Data"])

        let category = ResultCategory(index: 1, score: 0.95, categoryName: "Left", displayName: "Left")
        #expect(try Self.jsonKeys(of: category) == ["index", "score", "categoryName", "displayName"])
        let hand = HandLandmarkerResult(
            landmarks: [], worldLandmarks: [], handedness: [[category]], timestampInMilliseconds: 5)
        #expect(try Self.jsonKeys(of: hand) == ["handedness", "landmarks", "worldLandmarks", "timestampInMilliseconds"])
    }

    @Test("track ids are written only where there are some (video and live stream), and read back")
    func trackIdKeys() throws {
        let landmarks = [[NormalizedLandmark(x: 0, y: 0, z: 0)], [NormalizedLandmark(x: 1, y: 1, z: 0)]]
        let world = [[Landmark(x: 0, y: 0, z: 0)], [Landmark(x: 0, y: 0, z: 0)]]
        let pose = PoseLandmarkerResult(
            landmarks: landmarks, worldLandmarks: world, segmentationMasks: [], timestampInMilliseconds: 40,
            trackIds: [3, 0])
        #expect(try Self.jsonKeys(of: pose)
            == ["landmarks", "worldLandmarks", "segmentationMasks", "timestampInMilliseconds", "trackIds"])
        #expect(try JSONDecoder().decode(PoseLandmarkerResult.self, from: JSONEncoder().encode(pose)) == pose)

        let category = ResultCategory(index: 0, score: 0.9, categoryName: "Right", displayName: "Right")
        let hand = HandLandmarkerResult(
            landmarks: landmarks, worldLandmarks: world, handedness: [[category], [category]],
            timestampInMilliseconds: 40, trackIds: [1, 2])
        #expect(try Self.jsonKeys(of: hand)
            == ["handedness", "landmarks", "worldLandmarks", "timestampInMilliseconds", "trackIds"])
        #expect(try JSONDecoder().decode(HandLandmarkerResult.self, from: JSONEncoder().encode(hand)) == hand)

        let json = #"{"landmarks": [], "worldLandmarks": [], "handedness": [], "timestampInMilliseconds": 7}"#
        #expect(try JSONDecoder().decode(HandLandmarkerResult.self, from: Data(json.utf8)).trackIds == nil)
        #expect(try JSONDecoder().decode(PoseLandmarkerResult.self, from: Data(json.utf8)).trackIds == nil)
    }

    @Test("JSON written by hand with iOS names decodes")
    func decodesHandWrittenJSON() throws {
        let json = """
            {"timestampInMilliseconds": 1000,
             "handedness": [[{"index": 1, "score": 0.5, "categoryName": "Left", "displayName": "Left"}]],
             "landmarks": [[{"x": 0.25, "y": 0.5, "z": -0.125}]],
             "worldLandmarks": [[{"x": 0.01, "y": -0.02, "z": 0.03, "visibility": 0.75}]]}
            """
        let result = try JSONDecoder().decode(HandLandmarkerResult.self, from: Data(json.utf8))
        #expect(result.timestampInMilliseconds == 1000)
        #expect(result.handedness == [[ResultCategory(index: 1, score: 0.5, categoryName: "Left", displayName: "Left")]])
        #expect(result.landmarks == [[NormalizedLandmark(x: 0.25, y: 0.5, z: -0.125)]])
        #expect(result.landmarks[0][0].visibility == nil)
        #expect(result.worldLandmarks[0][0].visibility == 0.75)
    }

    @Test("a pose result round-trips through JSON")
    func roundTrip() throws {
        let result = PoseLandmarkerResult(
            landmarks: [[NormalizedLandmark(x: 0.1, y: 0.2, z: 0.3, visibility: 0.4, presence: 0.5)]],
            worldLandmarks: [[Landmark(x: -1, y: 2, z: -3, visibility: nil, presence: 0.25)]],
            segmentationMasks: [Mask(width: 3, height: 2, float32Data: [0, 0.25, 0.5, 0.75, 1, 0.125])],
            timestampInMilliseconds: 123_456)
        let decoded = try JSONDecoder().decode(PoseLandmarkerResult.self, from: JSONEncoder().encode(result))
        #expect(decoded == result)
    }

    @Test("a pose result written without masks (before they became an array) decodes with none")
    func decodesResultWithoutMasks() throws {
        let json = #"{"landmarks": [], "worldLandmarks": [], "timestampInMilliseconds": 7}"#
        let result = try JSONDecoder().decode(PoseLandmarkerResult.self, from: Data(json.utf8))
        #expect(result.segmentationMasks.isEmpty)
        #expect(result.timestampInMilliseconds == 7)
    }

    @Test("a byte mask round-trips through JSON with its data type")
    func byteMaskRoundTrip() throws {
        let mask = Mask(width: 2, height: 2, uint8Data: [0, 64, 128, 255])
        let decoded = try JSONDecoder().decode(Mask.self, from: JSONEncoder().encode(mask))
        #expect(decoded == mask)
        #expect(decoded.dataType == .uInt8)
        #expect(decoded.uint8Data == [0, 64, 128, 255])
    }

    @Test("mask decoding rejects data of the wrong size, and both or neither data keys",
          arguments: [
            #"{"width": 2, "height": 2, "float32Data": [0, 1, 0]}"#,
            #"{"width": -1, "height": -1, "float32Data": [0]}"#,
            #"{"width": 4611686018427387904, "height": 4, "float32Data": []}"#,
            #"{"width": 1, "height": 2, "uint8Data": [0]}"#,
            #"{"width": 1, "height": 1, "uint8Data": [300]}"#,
            #"{"width": 1, "height": 1, "uint8Data": [1], "float32Data": [0.5]}"#,
            #"{"width": 0, "height": 0}"#,
          ])
    func maskSizeMismatch(json: String) {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Mask.self, from: Data(json.utf8))
        }
    }

    @Test("mask data is row-major")
    func maskLayout() {
        let mask = Mask(width: 3, height: 2, float32Data: [0, 1, 2, 3, 4, 5])
        // Pixel (x: 2, y: 1) is at y * width + x.
        #expect(mask.float32Data[1 * mask.width + 2] == 5)
    }
}
