/// Element-wise operations applied to a convolution's output as it is computed, in place of a
/// following ADD, PRELU and RELU (folded by the interpreter), with exactly the float operations
/// of those kernels: for output element `y` of channel `c`, `y = clamp(y + residual, lower,
/// upper)` (or `residual + y`), then `y = y >= 0 ? y : alpha[c]·y`, then `y = 0 < y ? y : 0`.
/// One run's pointers and constants, so
/// that a block of the output at any pointer finds its residual at the same offset. A GEMM tile
/// applies them in registers before it stores (`EpilogueTile`); other kernels to blocks already
/// stored (`apply`).
public struct EpilogueOperands {
    /// The output tensor's first element.
    public var output: UnsafePointer<Float>
    /// The residual's first element (the output's layout), or nil for no ADD.
    public var residual: UnsafePointer<Float>?
    /// One past the residual's last element (the output's element count after `residual`):
    /// how far a tile may read whole vectors of it past its own columns.
    public var residualEnd: UnsafePointer<Float>?
    /// The ADD's clamp, in memory as vectors for the tiles' `vmaxps` / `vminps`.
    public var bounds: ClampBounds
    /// Whether the residual is the ADD's first operand (`residual + y`).
    public var residualFirst: Bool
    /// PRELU's alpha per channel, readable up to a multiple of 32 floats, or nil.
    public var alpha: UnsafePointer<Float>?
    /// Whether a RELU (`0 < y ? y : 0`) finishes each output.
    public var rectifies: Bool

    /// - Parameter elementCount: the output's elements (and the residual's).
    @inlinable
    public init(
        output: UnsafePointer<Float>, elementCount: Int, residual: UnsafePointer<Float>?, lower: Float,
        upper: Float, residualFirst: Bool, alpha: UnsafePointer<Float>?, rectifies: Bool
    ) {
        self.output = output
        self.residual = residual
        self.residualEnd = residual.map { $0 + elementCount }
        self.bounds = ClampBounds(lower: lower, upper: upper)
        self.residualFirst = residualFirst
        self.alpha = alpha
        self.rectifies = rectifies
    }

    /// The ADD's clamp: its lower bound.
    @inlinable public var lower: Float { bounds.lower[0] }
    /// The ADD's clamp: its upper bound.
    @inlinable public var upper: Float { bounds.upper[0] }

    /// Finishes rows `0..<rows`, columns `column ..< column + columns` of the block already
    /// stored at `c` (row `r` at `c + r·cStride`; column 0 of `c` is channel 0): vectors of
    /// `Wide` while they fit, then at most one of `Narrow`, then the columns left: as the last
    /// `Wide` vector of the columns, which overlaps columns already finished and keeps them as
    /// they are (`blend`; a partial GEMM tile's last columns), or one float at a time where the
    /// columns are narrower than a `Wide` vector. Only the block's own columns are read and
    /// written.
    /// Instantiate it with the family's own `KernelVectors` types, from a non-generic
    /// `@inline(never)` function of the family's module (once per block of rows, right after
    /// the GEMM computed it).
    @inlinable @inline(__always)
    public func apply<Wide: KernelVectors, Narrow: KernelVectors>(
        _ wide: Wide.Type, _ narrow: Narrow.Type,
        c: UnsafeMutablePointer<Float>, cStride: Int, rows: Int, column: Int, columns: Int
    ) {
        // The fields in locals, so that the stores to the block (which could alias them, for all
        // the compiler knows) do not make every iteration read them again.
        let lower = lower, upper = upper, residualFirst = residualFirst, alpha = alpha, rectifies = rectifies
        let wideLower = Wide.broadcast(lower), wideUpper = Wide.broadcast(upper)
        let narrowLower = Narrow.broadcast(lower), narrowUpper = Narrow.broadcast(upper)
        let width = Wide.Vector.scalarCount, narrowWidth = Narrow.Vector.scalarCount
        let offset = UnsafePointer(c) - output
        for r in 0..<rows {
            let y = c + r * cStride + column
            let x = residual.map { $0 + offset + r * cStride + column }
            var j = 0
            while j + width <= columns {
                var v = loadVector(y + j, as: Wide.Vector.self)
                if let x {
                    let other = loadVector(x + j, as: Wide.Vector.self)
                    v = Wide.clamp(residualFirst ? other + v : v + other, lower: wideLower, upper: wideUpper)
                }
                if let alpha { v = Wide.prelu(v, alpha: loadVector(alpha + column + j, as: Wide.Vector.self)) }
                if rectifies { v = Wide.rectify(v) }
                storeVector(v, y + j)
                j += width
            }
            if narrowWidth < width && j + narrowWidth <= columns {
                var v = loadVector(y + j, as: Narrow.Vector.self)
                if let x {
                    let other = loadVector(x + j, as: Narrow.Vector.self)
                    v = Narrow.clamp(residualFirst ? other + v : v + other, lower: narrowLower, upper: narrowUpper)
                }
                if let alpha { v = Narrow.prelu(v, alpha: loadVector(alpha + column + j, as: Narrow.Vector.self)) }
                if rectifies { v = Narrow.rectify(v) }
                storeVector(v, y + j)
                j += narrowWidth
            }
            if j < columns && columns >= width {
                let start = columns - width
                let stored = loadVector(y + start, as: Wide.Vector.self)
                var v = stored
                if let x {
                    let other = loadVector(x + start, as: Wide.Vector.self)
                    v = Wide.clamp(residualFirst ? other + v : v + other, lower: wideLower, upper: wideUpper)
                }
                if let alpha { v = Wide.prelu(v, alpha: loadVector(alpha + column + start, as: Wide.Vector.self)) }
                if rectifies { v = Wide.rectify(v) }
                storeVector(Wide.blend(v, stored, fromLane: j - start), y + start)
                j = columns
            }
            while j < columns {
                var v = y[j]
                if let x {
                    let sum = residualFirst ? x[j] + v : v + x[j]
                    let raised = sum < lower ? lower : sum
                    v = upper < raised ? upper : raised
                }
                if let alpha, !(v >= 0) { v = v * alpha[column + j] }
                if rectifies { v = 0 < v ? v : 0 }
                y[j] = v
                j += 1
            }
        }
    }
}

/// The epilogue of one GEMM tile, applied to its accumulators just before they are stored, so
/// that the output is written once, finished: the tile's own residual pointer, the bounds of the
/// ADD's clamp, the PRELU alphas of its (at most two) vectors of columns, loaded once a tile, and
/// whether a RELU finishes it.
public struct EpilogueTile<Vectors: KernelVectors> {
    public typealias V = Vectors.Vector
    /// The residual at the tile's row 0, column 0 (rows `cStride` apart, as the output's), or nil.
    public let residual: UnsafePointer<Float>?
    public let residualFirst: Bool
    public let lower: V, upper: V
    /// Whether there is a PRELU; its alphas for the tile's vector 0 and 1 of columns.
    public let hasAlpha: Bool
    public let alpha0: V, alpha1: V
    public let rectifies: Bool

    /// The epilogue `operands` for the tile whose row 0, column 0 is at `c`, channel `channel`
    /// of the output, `Vectors.count` vectors wide (its alphas are read up to a multiple of 32).
    @inlinable @inline(__always)
    public init(_ operands: UnsafePointer<EpilogueOperands>, c: UnsafePointer<Float>, channel: Int) {
        let e = operands.pointee
        residual = e.residual.map { $0 + (c - e.output) }
        residualFirst = e.residualFirst
        (lower, upper) = ClampBounds.load(operands.pointer(to: \.bounds)!, as: V.self)
        hasAlpha = e.alpha != nil
        let width = V.scalarCount
        alpha0 = e.alpha.map { loadVector($0 + channel, as: V.self) } ?? V()
        alpha1 = Vectors.count == 2 ? e.alpha.map { loadVector($0 + channel + width, as: V.self) } ?? V() : alpha0
        rectifies = e.rectifies
    }

    /// `v`, the tile's outputs `offset` floats from its row 0, column 0 (vector `vector` of its
    /// row), finished: the ADD and its clamp, then PRELU, then RELU.
    @inlinable @inline(__always)
    public func finish(_ v: V, offset: Int, vector: Int) -> V {
        var v = v
        if let residual {
            let other = loadVector(residual + offset, as: V.self)
            v = Vectors.clamp(residualFirst ? other + v : v + other, lower: lower, upper: upper)
        }
        if hasAlpha { v = Vectors.prelu(v, alpha: vector == 0 ? alpha0 : alpha1) }
        if rectifies { v = Vectors.rectify(v) }
        return v
    }
}
