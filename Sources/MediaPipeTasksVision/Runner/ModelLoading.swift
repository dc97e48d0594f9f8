import Inference
import Pipeline

/// Loading and checking the models of a landmarker bundle.
enum ModelLoading {
    /// The models of the bundle that `source` names (`kind.modelNames`, in that order), as
    /// interpreters that share their activation memory, scratch memory and worker threads
    /// (`Interpreter.sharingMemory(_:)`): a landmarker's graph runs them one after the other,
    /// reading each one's outputs before the next runs. Both models are read in place from
    /// the bundle (a file is mapped, not copied), which is let go before the shared memory is
    /// allocated. Model failures are reported as `TaskError.invalidModel` naming the member.
    ///
    /// The landmarkers run their models as MediaPipe does, bit for bit: the fast kernels
    /// compute what XNNPACK computes, and so do the channel-major regions of sparse 1×1
    /// convolutions (`usesSparseKernels`, pose_detection's detector: about 1.4× faster in
    /// both kernel families), which sum in the dense kernels' order. Tracking feeds each
    /// frame's landmarks into the next frame's crop, so a last-bit difference in a detection
    /// could grow into pixels a few frames later.
    ///
    /// With `baseOptions.weightCacheFolder`, packed weights are taken from and saved to that
    /// folder (`WeightCache`). Outputs the graph never reads are not computed
    /// (`kind.skippedOutputs(ofModelNamed:segmentationMasks:)`): the pose landmark model's
    /// segmentation head unless `segmentationMasks`.
    static func interpreters(
        kind: LandmarkerBundleKind, source: ModelAssetSource, baseOptions: BaseOptions,
        segmentationMasks: Bool = false
    ) throws -> [Interpreter] {
        let options = Interpreter.Options(
            threadCount: try baseOptions.validatedThreadCount(), usesSparseKernels: true,
            weightCache: baseOptions.weightCacheFolder.map(WeightCache.init(folder:)))
        return Interpreter.sharingMemory(
            try preparedModels(kind: kind, source: source, options: options, segmentationMasks: segmentationMasks))
    }

    /// The models `kind` reads from the bundle, prepared; the bundle is released on return.
    private static func preparedModels(
        kind: LandmarkerBundleKind, source: ModelAssetSource, options: Interpreter.Options,
        segmentationMasks: Bool
    ) throws -> [PreparedModel] {
        let bundle = try ModelAssetBundle(source: source)
        let names = kind.modelNames
        let identities = try bundle.sourceIdentities(ofModelsNamed: names)
        return try bundle.withModels(named: names) { models in
            Result {
                try zip(names, zip(models, identities)).map { name, model in
                    let (bytes, identity) = model
                    var modelOptions = options
                    modelOptions.pointwiseDepthwiseRounding = kind.pointwiseDepthwiseRounding(ofModelNamed: name)
                    modelOptions.skippedOutputs = kind.skippedOutputs(ofModelNamed: name, segmentationMasks: segmentationMasks)
                    do {
                        return try Interpreter.prepare(borrowing: bytes, sourceIdentity: identity, options: modelOptions)
                    } catch let error as InterpreterError {
                        throw TaskError.invalidModel("\(name): \(error)")
                    }
                }
            }
        }.get()
    }

    /// The graph `make` builds on the bundle's models, with a model of other tensor shapes
    /// (`ModelShapeError`) reported as `TaskError.invalidModel`.
    static func graph<Graph>(_ make: () throws -> Graph) throws -> Graph {
        do {
            return try make()
        } catch let error as ModelShapeError {
            throw TaskError.invalidModel(error.description)
        }
    }
}

/// Carries a graph into the runner's `@Sendable` processor. Contract: the runner never runs
/// the processor concurrently with itself, so the graph is used by one thread at a time.
/// `@unchecked Sendable` because the graph (interpreters, tracking state) is mutable and not
/// `Sendable`; the lock that makes this safe is the runner's (`VisionTaskRunner` runs the
/// processor under its synchronous-call lock or on its serial delivery queue, never both, as a
/// runner has one running mode), and the stress tests check it under the thread sanitizer.
struct UnsafeSendableGraph<Graph>: @unchecked Sendable {
    let graph: Graph
    init(_ graph: Graph) { self.graph = graph }
}
