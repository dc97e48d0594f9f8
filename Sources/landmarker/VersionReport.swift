import CBuildInfo
import Inference
import Kernels
import MediaPipeTasksVision

/// What `landmarker --version` prints: the package version, the commit the binary was built
/// from, the kernel family this CPU runs, the model folder the default models come from and
/// the folder of saved packed weights.
enum VersionReport {
    /// The package's version.
    static let packageVersion = "0.5.0"

    /// The report, one `field: value` line each after the first.
    static func text(models: ModelFiles = ModelFiles()) -> String {
        let modelFolder = models.folder(holding: ModelLocation.poseBundle)
            ?? "none holds \(ModelLocation.poseBundle) (looked in \(models.folders.compactMap(\.path).joined(separator: ", ")))"
        return """
            landmarker \(packageVersion)
            commit: \(String(cString: landmarker_build_commit()))
            kernels: \(kernelFamily)
            models: \(modelFolder)
            weight cache: \(WeightCache.standard?.folder ?? "off (\(WeightCache.environmentVariable)=off, or no HOME)")
            """
    }

    /// The microkernel family the fast kernels run on this CPU.
    static var kernelFamily: String {
        guard KernelInstructionSet.fusesMultiplyAdd else {
            return "portable (built without AVX2/FMA code generation)"
        }
        switch KernelInstructionSet.detected {
        case .avx512:
            return "AVX-512 (chosen at run time; \(KernelInstructionSet.disableAVX512Variable)=1 selects AVX2)"
        case .baseline:
            return KernelInstructionSet.avx512.isSupported
                ? "AVX2 + FMA (AVX-512 turned off by \(KernelInstructionSet.disableAVX512Variable)=1)"
                : "AVX2 + FMA (this CPU has no AVX-512)"
        }
    }
}
