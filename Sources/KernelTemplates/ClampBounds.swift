/// An output clamp, each bound in 16 lanes (the widest vector of any family), that kernels take
/// in memory and load as vectors.
///
/// Why in memory: bounds a kernel broadcasts from two floats itself are splats that LLVM folds
/// into the integer form of the clamp's `select` (`VectorLanes.swift`), which x86 code
/// generation cannot turn into a minimum or a maximum, so the clamp took a compare and a blend
/// per bound. Loaded as vectors, the same clamp compiles to one `vmaxps` and one `vminps`, with
/// the same results.
public struct ClampBounds {
    /// `lower` in every lane.
    public var lower: SIMD16<Float>
    /// `upper` in every lane.
    public var upper: SIMD16<Float>

    @inlinable
    public init(lower: Float, upper: Float) {
        self.lower = SIMD16(repeating: lower)
        self.upper = SIMD16(repeating: upper)
    }

    /// The bounds at `bounds` as two vectors of `V` (8 or 16 lanes): `lower` at the start,
    /// `upper` one `SIMD16<Float>` after it (the stored properties' order; a test checks it).
    @inlinable @inline(__always)
    public static func load<V: SIMD>(_ bounds: UnsafePointer<ClampBounds>, as: V.Type) -> (lower: V, upper: V)
    where V.Scalar == Float {
        let raw = UnsafeRawPointer(bounds)
        return (raw.loadUnaligned(as: V.self),
                raw.loadUnaligned(fromByteOffset: MemoryLayout<SIMD16<Float>>.stride, as: V.self))
    }
}
