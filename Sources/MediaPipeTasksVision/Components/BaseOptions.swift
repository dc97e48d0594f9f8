#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Inference

/// Options shared by every task: where its model asset comes from, and what runs it.
///
/// A landmarker's model asset is a `.task` bundle: a zip archive of *stored* (uncompressed)
/// `.tflite` members (see `LandmarkerBundleKind` for the member names). Set exactly one of
/// the two properties.
///
/// Thread safety: not `Sendable` (a mutable class, as on iOS): set it up on one thread. The
/// landmarker reads it once, when it is created; later changes do not reach an existing landmarker.
public final class BaseOptions {
    /// Absolute or working-directory-relative path of the `.task` bundle on disk.
    public var modelAssetPath: String?

    /// The bytes of a `.task` bundle already in memory, for example embedded in the
    /// application or downloaded. Use this instead of `modelAssetPath` when there is no file.
    public var modelAssetBuffer: [UInt8]?

    /// The hardware that runs the models; `.CPU` by default, as on iOS. `.CPU` is the only one
    /// this runtime has: a task created with `.GPU` throws `TaskError.unsupportedDelegate`.
    public var delegate: Delegate = .CPU

    /// Threads the model kernels split their work over (Linux addition; iOS picks its own).
    /// Results are bit-identical for every value. Default: the number of active cores, at most 8.
    public var numThreads: Int = min(8, max(1, ProcessInfo.processInfo.activeProcessorCount))

    /// The folder where the models' packed weights are saved, so that the next landmarker
    /// made from the same bundle maps them instead of packing them again (Linux addition; see
    /// `WeightCache`): its models load two to three times faster. nil packs afresh and saves
    /// nothing. Default: `$LANDMARKER_WEIGHT_CACHE` (`off` for nil), else
    /// `$XDG_CACHE_HOME/landmarker/weights`, else `~/.cache/landmarker/weights`. Results are
    /// bit-identical either way.
    public var weightCacheFolder: String? = WeightCache.standard?.folder

    /// The most threads `numThreads` may ask for.
    public static let maximumNumThreads = 256

    public init() {}

    /// `numThreads`, checked to be in `1...maximumNumThreads`.
    package func validatedThreadCount() throws(TaskError) -> Int {
        guard (1...Self.maximumNumThreads).contains(numThreads) else {
            throw .countOutOfRange(option: "baseOptions.numThreads", value: numThreads, allowed: 1...Self.maximumNumThreads)
        }
        return numThreads
    }

    /// Throws unless `delegate` is one this runtime has (`.CPU`).
    package func validateDelegate() throws(TaskError) {
        guard delegate == .CPU else { throw .unsupportedDelegate(delegate) }
    }

    /// The single model source these options name.
    ///
    /// An empty path or an empty buffer counts as unset.
    /// - Throws: `TaskError.missingModelAsset` when neither property is set,
    ///   `TaskError.conflictingModelAssets` when both are.
    package func validatedModelAsset() throws(TaskError) -> ModelAssetSource {
        let path = modelAssetPath.flatMap { $0.isEmpty ? nil : $0 }
        let buffer = modelAssetBuffer.flatMap { $0.isEmpty ? nil : $0 }
        switch (path, buffer) {
        case (nil, nil): throw .missingModelAsset
        case (.some, .some): throw .conflictingModelAssets
        case (.some(let path), nil): return .path(path)
        case (nil, .some(let buffer)): return .buffer(buffer)
        }
    }
}

/// Where a model asset bundle is read from.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package enum ModelAssetSource: Sendable, Equatable {
    /// A `.task` file on disk.
    case path(String)
    /// The bytes of a `.task` file.
    case buffer([UInt8])
}
