import KernelTemplates

/// The baseline family's vectors for the templates of `KernelTemplates`: `SIMD8<Float>`
/// (one ymm register in the native build), with this module's multiply-add (fused only where
/// `LANDMARKER_FMA` is set) and clamp. The conforming types are the family's own markers.
protocol BaselineVectors: KernelVectors where Vector == SIMD8<Float> {}

extension BaselineVectors {
    @inline(__always)
    static func broadcast(_ value: Float) -> SIMD8<Float> { SIMD8<Float>(repeating: value) }

    @inline(__always)
    static func multiplyAdd(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ c: SIMD8<Float>) -> SIMD8<Float> {
        Kernels.multiplyAdd(a, b, c)
    }

    @inline(__always)
    static func multiplyAdd(_ a: Float, _ b: Float, _ c: Float) -> Float { Kernels.multiplyAdd(a, b, c) }

    @inline(__always)
    static func clamp(_ x: SIMD8<Float>, lower: SIMD8<Float>, upper: SIMD8<Float>) -> SIMD8<Float> {
        Kernels.clamp(x, lower: lower, upper: upper)
    }

    @inline(__always)
    static func prelu(_ x: SIMD8<Float>, alpha: SIMD8<Float>) -> SIMD8<Float> { Kernels.prelu(x, alpha: alpha) }
}

/// One 8-lane vector: the 8-wide GEMM panel, a group of 8 channels.
enum BaselineF32x8: BaselineVectors {
    static var count: Int { 1 }
}

/// Two 8-lane vectors: the 16-wide GEMM panel, a group of 16 channels.
enum BaselineF32x8x2: BaselineVectors {
    static var count: Int { 2 }
}
