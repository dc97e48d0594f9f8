import KernelTemplates

/// The AVX-512 family's marker for the templates of `KernelTemplates`.
public enum AVX512Family: KernelFamily {}

/// The fp32 multiply-add peak loop of the AVX-512 family (`fmaPeakChains` on `SIMD16<Float>`,
/// one zmm register, each `addingProduct` one 512-bit `vfmadd`). Call it only where the AVX-512
/// kernels are supported (`FMAPeak` checks).
@inline(never)
public func fmaPeakChainsAVX512(rounds: Int, multiplier: Float, addend: Float) -> Float {
    fmaPeakChains(SIMD16<Float>.self, family: AVX512Family.self, rounds: rounds, multiplier: multiplier, addend: addend)
}

/// Floating-point operations in one round of `fmaPeakChainsAVX512`.
public let fmaPeakAVX512FlopsPerRound = fmaPeakFlopsPerRound(SIMD16<Float>.self)
