/// Element-wise operations applied to blocks of a convolution's output after they are
/// computed, in place of a following ADD and PRELU (folded by the interpreter), with exactly
/// the float operations of those kernels: for output element `y` of channel `c`,
/// `y = clamp(y + residual, lower, upper)` (or `residual + y`), then
/// `y = y >= 0 ? y : alpha[c]·y`. One run's pointers and constants, so that a block of the
/// output at any pointer finds its residual at the same offset.
public struct EpilogueOperands {
    /// The output tensor's first element.
    public var output: UnsafePointer<Float>
    /// The residual's first element (the output's layout), or nil for no ADD.
    public var residual: UnsafePointer<Float>?
    public var lower: Float
    public var upper: Float
    /// Whether the residual is the ADD's first operand (`residual + y`).
    public var residualFirst: Bool
    /// PRELU's alpha per channel, readable up to a multiple of 32 floats, or nil.
    public var alpha: UnsafePointer<Float>?

    @inlinable
    public init(
        output: UnsafePointer<Float>, residual: UnsafePointer<Float>?, lower: Float, upper: Float,
        residualFirst: Bool, alpha: UnsafePointer<Float>?
    ) {
        self.output = output
        self.residual = residual
        self.lower = lower
        self.upper = upper
        self.residualFirst = residualFirst
        self.alpha = alpha
    }

    /// Finishes rows `0..<rows`, columns `column ..< column + columns` of the block already
    /// stored at `c` (row `r` at `c + r·cStride`; column 0 of `c` is channel 0): vectors of
    /// `Wide` while they fit, then at most one of `Narrow`, then one float at a time.
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
        let lower = lower, upper = upper, residualFirst = residualFirst, alpha = alpha
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
                storeVector(v, y + j)
                j += narrowWidth
            }
            while j < columns {
                var v = y[j]
                if let x {
                    let sum = residualFirst ? x[j] + v : v + x[j]
                    let raised = sum < lower ? lower : sum
                    v = upper < raised ? upper : raised
                }
                if let alpha, !(v >= 0) { v = v * alpha[column + j] }
                y[j] = v
                j += 1
            }
        }
    }
}
