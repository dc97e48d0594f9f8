import Kernels
import Pipeline

/// A `.task` model asset bundle: a stored-entry zip archive of `.tflite` models, read from a
/// file or from memory. A file is mapped into memory, not read into an array: models are read
/// in place (`withModels(named:_:)`) or copied out as bytes (`model(named:)`); nothing is
/// unpacked to disk.
///
/// Thread safety: a `Sendable` value holding immutable bundle bytes; read it from any number of
/// threads at once.
package struct ModelAssetBundle: Sendable {
    private let archive: StoredZipArchive

    /// Reads and validates the bundle that `source` names.
    ///
    /// - Throws: `ModelAssetError.unreadableFile` when a path cannot be read,
    ///   `ModelAssetError.invalidBundle` when the bytes are not a valid stored-entry zip archive.
    package init(source: ModelAssetSource) throws(ModelAssetError) {
        switch source {
        case .buffer(let buffer):
            do { archive = try StoredZipArchive(bytes: buffer) } catch { throw .invalidBundle(error) }
        case .path(let path):
            let file = try MappedFile(path: path)
            do { archive = try StoredZipArchive(mappedFile: file) } catch { throw .invalidBundle(error) }
        }
    }

    /// The names of the bundle's members, in archive order.
    package var modelNames: [String] { archive.entries.map(\.name) }

    /// The bytes of the member named `name`.
    ///
    /// - Throws: `ModelAssetError.missingModel` listing the members present, or
    ///   `ModelAssetError.invalidBundle` when the member fails its CRC-32 check.
    package func model(named name: String) throws(ModelAssetError) -> [UInt8] {
        try withModels(named: [name]) { Array($0[0]) }
    }

    /// Calls `body` with the bytes of the members named `names`, in that order, in place,
    /// without copying them (the pages of a mapped file are read as they are touched), once
    /// every one is found and has passed its CRC-32 check. The pointers are valid only inside
    /// `body`.
    ///
    /// - Throws: `ModelAssetError.missingModel` for the first name that the bundle lacks, else
    ///   `ModelAssetError.invalidBundle` for the first member that fails its CRC-32 check.
    func withModels<R>(named names: [String], _ body: ([UnsafeRawBufferPointer]) -> R) throws(ModelAssetError) -> R {
        let entries = try self.entries(named: names)
        do {
            return try archive.withContents(of: entries, body)
        } catch {
            throw .invalidBundle(error)
        }
    }

    /// What identifies the members named `names` without reading them, in that order: for a
    /// bundle mapped from a file, the file's identity and each member's place in it; nil for
    /// a bundle in memory (`ModelBytes.sourceIdentity`).
    ///
    /// - Throws: `ModelAssetError.missingModel` for the first name that the bundle lacks.
    package func sourceIdentities(ofModelsNamed names: [String]) throws(ModelAssetError) -> [[UInt64]?] {
        try entries(named: names).map(archive.sourceIdentity(of:))
    }

    /// The entries named `names`, in that order.
    private func entries(named names: [String]) throws(ModelAssetError) -> [StoredZipArchive.Entry] {
        var entries: [StoredZipArchive.Entry] = []
        for name in names {
            guard let entry = archive.entry(named: name) else {
                throw .missingModel(name: name, available: modelNames)
            }
            entries.append(entry)
        }
        return entries
    }
}

/// Which landmarker a bundle is for, and the member names that landmarker reads from it.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package enum LandmarkerBundleKind: Sendable, CaseIterable {
    /// `pose_landmarker*.task`: `pose_detector.tflite` + `pose_landmarks_detector.tflite`.
    case poseLandmarker
    /// `hand_landmarker*.task`: `hand_detector.tflite` + `hand_landmarks_detector.tflite`.
    case handLandmarker
    /// `face_landmarker*.task`: `face_detector.tflite` + `face_landmarks_detector.tflite`.
    case faceLandmarker
    /// `holistic_landmarker*.task`: the pose landmarker's two models, the face landmarker's two,
    /// `hand_recrop.tflite` and `hand_landmarks_detector.tflite`.
    case holisticLandmarker

    /// Every member the landmarker reads, detector first, in the order its graph takes them.
    package var modelNames: [String] {
        switch self {
        case .poseLandmarker: ["pose_detector.tflite", "pose_landmarks_detector.tflite"]
        case .handLandmarker: ["hand_detector.tflite", "hand_landmarks_detector.tflite"]
        case .faceLandmarker: ["face_detector.tflite", "face_landmarks_detector.tflite"]
        case .holisticLandmarker:
            ["pose_detector.tflite", "pose_landmarks_detector.tflite", "face_detector.tflite",
             "face_landmarks_detector.tflite", "hand_recrop.tflite", "hand_landmarks_detector.tflite"]
        }
    }

    /// How member `name` rounds its pointwise depthwise convolutions: as MediaPipe 0.10.21's
    /// XNNPACK does (`.separate`) for the holistic graph's `hand_recrop`, which MediaPipe's
    /// graph runs with it; as LiteRT 2.3.0's (`.fused`, the same bits for every other model).
    package func pointwiseDepthwiseRounding(ofModelNamed name: String) -> PointwiseDepthwiseRounding {
        self == .holisticLandmarker && name == "hand_recrop.tflite" ? .separate : .fused
    }

    /// The outputs of member `name` the landmarker's graph never reads, left uncomputed
    /// (`Interpreter.Options.skippedOutputs`): the pose landmark model's segmentation output
    /// when no masks are asked for.
    package func skippedOutputs(ofModelNamed name: String, segmentationMasks: Bool) -> Set<Int> {
        let posesMasked = self == .poseLandmarker || self == .holisticLandmarker
        return posesMasked && name == "pose_landmarks_detector.tflite" && !segmentationMasks
            ? [PoseGraph.segmentationOutput] : []
    }

    /// The first detector model's member name (pose, palm or face detector).
    package var detectorModelName: String { modelNames[0] }

    /// The first landmark model's member name.
    package var landmarksDetectorModelName: String { modelNames[1] }
}

/// The detector and the first landmark model of a landmarker (`LandmarkerBundleKind`'s first
/// two members), as bytes. Other members of the bundle are ignored.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct LandmarkerModels: Sendable, Equatable {
    /// The detector (`pose_detector.tflite`, `hand_detector.tflite` or `face_detector.tflite`).
    package let detectorModel: [UInt8]
    /// The landmark model (`pose_landmarks_detector.tflite`, `hand_landmarks_detector.tflite` or
    /// `face_landmarks_detector.tflite`).
    package let landmarksDetectorModel: [UInt8]

    /// Loads the bundle that `source` names and extracts `kind`'s first two models.
    ///
    /// - Throws: `ModelAssetError`.
    package init(kind: LandmarkerBundleKind, source: ModelAssetSource) throws(ModelAssetError) {
        let bundle = try ModelAssetBundle(source: source)
        detectorModel = try bundle.model(named: kind.detectorModelName)
        landmarksDetectorModel = try bundle.model(named: kind.landmarksDetectorModelName)
    }
}
