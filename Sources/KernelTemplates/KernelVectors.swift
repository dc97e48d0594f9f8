/// `count` vectors of `Vector` that a microkernel template handles together (the width of a
/// GEMM tile, a group of channels), with the multiply-add and clamp of the family that
/// instantiates it.
///
/// Each family declares its own conforming types in its own module: they are its markers
/// (`KernelFamily`), so a template specialised for one of them is that family's code, compiled
/// with that family's code generation, under a name no other family uses. The operations are
/// requirements, so that a specialised template calls the concrete ones of its vector type (one
/// vector instruction each, below for `SIMD8<Float>` and `SIMD16<Float>`), never the generic
/// `SIMD` ones that go lane by lane.
///
/// A family declares its markers and instantiates every template in one source file: in builds
/// that compile file by file (debug builds), the optimiser sees a conformance only in the file
/// that declares it, and a template specialised in any other file would call its operations
/// through the witness table, many times slower.
public protocol KernelVectors: KernelFamily {
    associatedtype Vector: SIMD where Vector.Scalar == Float
    /// Vectors handled together: 1 or 2.
    static var count: Int { get }
    /// A vector with every lane `value`.
    static func broadcast(_ value: Float) -> Vector
    /// `a · b + c` per lane: fused in families with fused multiply-add code generation,
    /// a separate multiply and add otherwise (the portable build).
    static func multiplyAdd(_ a: Vector, _ b: Vector, _ c: Vector) -> Vector
    /// `a · b + c` for one lane, fused exactly where the vector one is.
    static func multiplyAdd(_ a: Float, _ b: Float, _ c: Float) -> Float
    /// The `Vector.scalarCount` float16 values whose bit patterns are at `halves` (no alignment
    /// required), each widened exactly.
    static func loadWidening(_ halves: UnsafeRawPointer) -> Vector
    /// `min(max(x, lower), upper)` per lane, a NaN lane staying NaN (as TFLite clamps).
    static func clamp(_ x: Vector, lower: Vector, upper: Vector) -> Vector
    /// PRELU per lane: `x >= 0 ? x : alpha·x` (NaN lanes take the product, as in TFLite).
    static func prelu(_ x: Vector, alpha: Vector) -> Vector
    /// RELU per lane: `0 < x ? x : 0` (−0 and NaN lanes become +0, as in TFLite).
    static func rectify(_ x: Vector) -> Vector
    /// Lanes `first` and above of `a`, the lanes below them of `b` (`first` in
    /// 0...`Vector.scalarCount`).
    static func blend(_ a: Vector, _ b: Vector, fromLane first: Int) -> Vector
    /// Copies the first `rows` rows and `columns` columns of a tile of vectors spilled to
    /// `tile` (`rowWidth` floats per row, rows one after another) to `c`, row `r` at
    /// `c + r·cStride`: the last row tile and a partial panel of a GEMM.
    static func storePartialTile(
        _ tile: UnsafeRawBufferPointer, rowWidth: Int, rows: Int, columns: Int,
        c: UnsafeMutablePointer<Float>, cStride: Int)
}

extension KernelVectors {
    /// Float by float.
    @inlinable @inline(__always)
    public static func storePartialTile(
        _ tile: UnsafeRawBufferPointer, rowWidth: Int, rows: Int, columns: Int,
        c: UnsafeMutablePointer<Float>, cStride: Int
    ) {
        let values = tile.assumingMemoryBound(to: Float.self)
        for r in 0..<rows {
            for j in 0..<columns { c[r * cStride + j] = values[r * rowWidth + j] }
        }
    }
}

// The operations of the three vector types the families use, from `VectorLanes.swift`. A family
// declares only its markers (`Vector` and `count`); a marker's specialisations are still its
// family's own, compiled in the module that declares it.

extension KernelVectors where Vector == SIMD8<Float> {
    @inlinable @inline(__always)
    public static func broadcast(_ value: Float) -> SIMD8<Float> { SIMD8<Float>(repeating: value) }

    @inlinable @inline(__always)
    public static func loadWidening(_ halves: UnsafeRawPointer) -> SIMD8<Float> {
        SIMD8<Float>(halves.loadUnaligned(as: SIMD8<Float16>.self))
    }

    @inlinable @inline(__always)
    public static func multiplyAdd(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ c: SIMD8<Float>) -> SIMD8<Float> {
        KernelTemplates.multiplyAdd(a, b, c)
    }

    @inlinable @inline(__always)
    public static func multiplyAdd(_ a: Float, _ b: Float, _ c: Float) -> Float { KernelTemplates.multiplyAdd(a, b, c) }

    @inlinable @inline(__always)
    public static func clamp(_ x: SIMD8<Float>, lower: SIMD8<Float>, upper: SIMD8<Float>) -> SIMD8<Float> {
        KernelTemplates.clamp(x, lower: lower, upper: upper)
    }

    @inlinable @inline(__always)
    public static func prelu(_ x: SIMD8<Float>, alpha: SIMD8<Float>) -> SIMD8<Float> {
        KernelTemplates.prelu(x, alpha: alpha)
    }

    @inlinable @inline(__always)
    public static func rectify(_ x: SIMD8<Float>) -> SIMD8<Float> { KernelTemplates.rectify(x) }

    @inlinable @inline(__always)
    public static func blend(_ a: SIMD8<Float>, _ b: SIMD8<Float>, fromLane first: Int) -> SIMD8<Float> {
        let lanes = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
        return select(lanes .>= SIMD8<Int32>(repeating: Int32(truncatingIfNeeded: first)), a, b)
    }
}

extension KernelVectors where Vector == SIMD16<Float> {
    @inlinable @inline(__always)
    public static func broadcast(_ value: Float) -> SIMD16<Float> { SIMD16<Float>(repeating: value) }

    /// Two 8-lane widenings joined: the 16-lane conversion is the standard library's generic
    /// initialiser, which stays an out-of-line call (spilling every live vector around it),
    /// while each 8-lane one is a single `vcvtph2ps`.
    @inlinable @inline(__always)
    public static func loadWidening(_ halves: UnsafeRawPointer) -> SIMD16<Float> {
        SIMD16<Float>(
            lowHalf: SIMD8<Float>(halves.loadUnaligned(as: SIMD8<Float16>.self)),
            highHalf: SIMD8<Float>(halves.loadUnaligned(fromByteOffset: 16, as: SIMD8<Float16>.self)))
    }

    @inlinable @inline(__always)
    public static func multiplyAdd(_ a: SIMD16<Float>, _ b: SIMD16<Float>, _ c: SIMD16<Float>) -> SIMD16<Float> {
        KernelTemplates.multiplyAdd(a, b, c)
    }

    @inlinable @inline(__always)
    public static func multiplyAdd(_ a: Float, _ b: Float, _ c: Float) -> Float { KernelTemplates.multiplyAdd(a, b, c) }

    @inlinable @inline(__always)
    public static func clamp(_ x: SIMD16<Float>, lower: SIMD16<Float>, upper: SIMD16<Float>) -> SIMD16<Float> {
        KernelTemplates.clamp(x, lower: lower, upper: upper)
    }

    @inlinable @inline(__always)
    public static func prelu(_ x: SIMD16<Float>, alpha: SIMD16<Float>) -> SIMD16<Float> {
        KernelTemplates.prelu(x, alpha: alpha)
    }

    @inlinable @inline(__always)
    public static func rectify(_ x: SIMD16<Float>) -> SIMD16<Float> { KernelTemplates.rectify(x) }

    @inlinable @inline(__always)
    public static func blend(_ a: SIMD16<Float>, _ b: SIMD16<Float>, fromLane first: Int) -> SIMD16<Float> {
        let lanes = SIMD16<Int32>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
        return select(lanes .>= SIMD16<Int32>(repeating: Int32(truncatingIfNeeded: first)), a, b)
    }
}

extension KernelVectors where Vector == SIMD4<Float> {
    @inlinable @inline(__always)
    public static func broadcast(_ value: Float) -> SIMD4<Float> { SIMD4<Float>(repeating: value) }

    @inlinable @inline(__always)
    public static func loadWidening(_ halves: UnsafeRawPointer) -> SIMD4<Float> {
        SIMD4<Float>(halves.loadUnaligned(as: SIMD4<Float16>.self))
    }

    @inlinable @inline(__always)
    public static func multiplyAdd(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>) -> SIMD4<Float> {
        KernelTemplates.multiplyAdd(a, b, c)
    }

    @inlinable @inline(__always)
    public static func multiplyAdd(_ a: Float, _ b: Float, _ c: Float) -> Float { KernelTemplates.multiplyAdd(a, b, c) }

    @inlinable @inline(__always)
    public static func clamp(_ x: SIMD4<Float>, lower: SIMD4<Float>, upper: SIMD4<Float>) -> SIMD4<Float> {
        KernelTemplates.clamp(x, lower: lower, upper: upper)
    }

    @inlinable @inline(__always)
    public static func prelu(_ x: SIMD4<Float>, alpha: SIMD4<Float>) -> SIMD4<Float> {
        KernelTemplates.prelu(x, alpha: alpha)
    }

    @inlinable @inline(__always)
    public static func rectify(_ x: SIMD4<Float>) -> SIMD4<Float> { KernelTemplates.rectify(x) }

    @inlinable @inline(__always)
    public static func blend(_ a: SIMD4<Float>, _ b: SIMD4<Float>, fromLane first: Int) -> SIMD4<Float> {
        let lanes = SIMD4<Int32>(0, 1, 2, 3)
        return select(lanes .>= SIMD4<Int32>(repeating: Int32(truncatingIfNeeded: first)), a, b)
    }
}

/// Loads a vector from `pointer` (no alignment required).
@inlinable @inline(__always)
public func loadVector<V: SIMD>(_ pointer: UnsafePointer<Float>, as: V.Type) -> V where V.Scalar == Float {
    UnsafeRawPointer(pointer).loadUnaligned(as: V.self)
}

/// Stores a vector at `pointer` (no alignment required).
@inlinable @inline(__always)
public func storeVector<V: SIMD>(_ value: V, _ pointer: UnsafeMutablePointer<Float>) where V.Scalar == Float {
    UnsafeMutableRawPointer(pointer).storeBytes(of: value, as: V.self)
}
