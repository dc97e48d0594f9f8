// The depthwise kernels on whole small channel-major planes, for square
// 3×3 and 5×5 filters at the same stride (1 or 2) along both axes, written
// once for every family.
//
// The zero-padded plane is copied into scratch as one flat array of rows
// `rowFloats` apart, with each row's right padding running into the next
// row's left padding. Output `(oy, ox)` is then flat position
// `q = oy·rowFloats + ox`, and tap `(ky, kx)` of every output sits at the
// same offset from `q`, so whole 16-lane vectors of consecutive positions
// (one zmm register with AVX-512, two ymm registers with AVX2) are
// computed at once, across row ends (the positions past a row's last
// output are computed too, and dropped). At stride 2 the padded plane is
// split into four phase planes by the parity of its rows and columns, so
// that consecutive outputs read consecutive floats of one phase plane.
// Each sum starts from the bias and adds one multiply-add per tap in
// (kx, ky) order (filter columns outer), as the channels-last kernels do; a
// tap in the padding adds `0 · w`, so the results equal theirs bit for bit
// unless the bias is `−0` or a weight is not finite (see
// `DepthwiseCHWTemplate.swift`). The planes are copied in and out 16
// floats at a time in every family, so the scratch layout does not depend
// on the family.

/// Consecutive channel planes of one batch item, for the whole-plane
/// kernels. All offsets the kernel forms stay inside the planes and the
/// scratch as described, so its wrapping operators cannot wrap.
public struct DepthwiseCHWPlanesOperands {
    /// `planeCount` input planes of `inputHeight` rows of `inputWidth`
    /// floats, one after another. A row may be read up to 15 floats past
    /// its last element (the tensor's own tail padding
    /// covers the last row).
    public var input: UnsafePointer<Float>
    public var inputHeight: Int
    public var inputWidth: Int
    /// `planeCount` output planes of `outputHeight` rows of `outputWidth`
    /// floats, one after another; nothing else is written.
    public var output: UnsafeMutablePointer<Float>
    public var outputHeight: Int
    public var outputWidth: Int
    public var planeCount: Int
    /// Implicit zero rows above and columns left of each input plane.
    public var padTop: Int
    public var padLeft: Int
    /// Each plane's `size × size` filter taps, row-major, one plane's after
    /// another.
    public var weights: UnsafePointer<Float>
    /// One bias per plane.
    public var biases: UnsafePointer<Float>
    public var lower: Float
    public var upper: Float
    /// `depthwiseCHWPlaneScratchFloats` floats.
    public var scratch: UnsafeMutablePointer<Float>

    @inlinable
    public init(
        input: UnsafePointer<Float>, inputHeight: Int, inputWidth: Int,
        output: UnsafeMutablePointer<Float>, outputHeight: Int, outputWidth: Int, planeCount: Int,
        padTop: Int, padLeft: Int, weights: UnsafePointer<Float>, biases: UnsafePointer<Float>,
        lower: Float, upper: Float, scratch: UnsafeMutablePointer<Float>
    ) {
        self.input = input
        self.inputHeight = inputHeight
        self.inputWidth = inputWidth
        self.output = output
        self.outputHeight = outputHeight
        self.outputWidth = outputWidth
        self.planeCount = planeCount
        self.padTop = padTop
        self.padLeft = padLeft
        self.weights = weights
        self.biases = biases
        self.lower = lower
        self.upper = upper
        self.scratch = scratch
    }
}

/// How one plane's scratch is laid out: `phases` flat planes (1 at
/// stride 1, 4 at stride 2) of `rows` rows of `rowFloats` floats,
/// `phaseFloats` apart, then the flat outputs, `vectors · 16` floats (the
/// first `outputs` of them kept: the flat position of the last output
/// plus one). Each
/// phase plane and the outputs end in at least 48 floats of slack, which
/// whole-vector fills and reads past the last row may touch. The kernel
/// uses two such buffers, `bufferFloats` apart, in turn.
public struct CHWFlatLayout {
    public let rowFloats: Int
    public let rows: Int
    public let phaseFloats: Int
    public let outputs: Int
    public let vectors: Int
    public let outputOffset: Int
    public let bufferFloats: Int

    /// Sizes are tensor dimensions plus the filter size: nothing overflows.
    @inlinable
    public init(size: Int, stride: Int, outputHeight: Int, outputWidth: Int) {
        let reach = (size - 1) / stride
        rowFloats = outputWidth + reach
        rows = outputHeight + reach
        phaseFloats = (rows * rowFloats + 48 + 15) / 16 * 16
        outputs = (outputHeight - 1) * rowFloats + outputWidth
        vectors = (outputs + 15) / 16
        outputOffset = stride * stride * phaseFloats
        bufferFloats = outputOffset + vectors * 16 + 48
    }
}

/// The scratch floats `depthwiseCHWPlanes` needs.
public func depthwiseCHWPlaneScratchFloats(size: Int, stride: Int, outputHeight: Int, outputWidth: Int) -> Int {
    2 * CHWFlatLayout(size: size, stride: stride, outputHeight: outputHeight, outputWidth: outputWidth).bufferFloats
}

/// Whole channel planes for a `size × size` filter (3 or 5) at `stride`
/// (1 or 2) along both axes, the outputs computed in vectors of `Lanes`.
/// Other shapes are a programmer error. Instantiate it with the family's
/// own marker, from a non-generic `@inline(never)` function of the
/// family's module.
@inlinable @inline(__always)
public func depthwiseCHWPlanes<Lanes: KernelVectors>(
    _ lanes: Lanes.Type, size: Int, stride: Int, _ planes: DepthwiseCHWPlanesOperands
) {
    switch (size, stride) {
    case (3, 1): flatPlanes(CHWFlat<CHWCount3, CHWCount1, Lanes>.self, planes)
    case (3, 2): flatPlanes(CHWFlat<CHWCount3, CHWCount2, Lanes>.self, planes)
    case (5, 1): flatPlanes(CHWFlat<CHWCount5, CHWCount1, Lanes>.self, planes)
    case (5, 2): flatPlanes(CHWFlat<CHWCount5, CHWCount2, Lanes>.self, planes)
    default: preconditionFailure("no flat channel-major depthwise kernel for \(size)×\(size) stride \(stride)")
    }
}

/// A square filter size, a stride and the family's vectors fixed at
/// compile time.
public enum CHWFlat<Size: CHWStaticCount, Stride: CHWStaticCount, Lanes: KernelVectors> {}

/// The planes in a pipeline over the two scratch buffers: while plane `p`
/// is computed from one buffer, plane `p + 1` has just been copied into
/// the other and plane `p − 1`'s outputs are copied out after it, so no
/// load reads floats that were stored just before (which would wait for
/// the stores to complete).
@inlinable @inline(never)
func flatPlanes<Size, Stride, Lanes>(_ shape: CHWFlat<Size, Stride, Lanes>.Type, _ planes: DepthwiseCHWPlanesOperands) {
    let size = Size.value, stride = Stride.value
    let layout = CHWFlatLayout(
        size: size, stride: stride, outputHeight: planes.outputHeight, outputWidth: planes.outputWidth)
    let inputPlane = planes.inputHeight &* planes.inputWidth
    let outputPlane = planes.outputHeight &* planes.outputWidth
    func buffer(_ p: Int) -> UnsafeMutablePointer<Float> { planes.scratch + (p & 1) &* layout.bufferFloats }
    guard planes.planeCount > 0 else { return }
    fillFlatPlane(shape, planes, layout: layout, from: planes.input, into: buffer(0))
    for p in 0..<planes.planeCount {
        if p &+ 1 < planes.planeCount {
            fillFlatPlane(shape, planes, layout: layout, from: planes.input + (p &+ 1) &* inputPlane, into: buffer(p &+ 1))
        }
        computeFlatPlane(
            shape, planes, layout: layout, weights: planes.weights + p &* size &* size, bias: planes.biases[p],
            scratch: buffer(p))
        if p > 0 {
            copyOutFlatPlane(planes, layout: layout, from: buffer(p &- 1), to: planes.output + (p &- 1) &* outputPlane)
        }
    }
    let last = planes.planeCount &- 1
    copyOutFlatPlane(planes, layout: layout, from: buffer(last), to: planes.output + last &* outputPlane)
}

/// Copies one zero-padded input plane into the phase planes of `scratch`.
/// Padded rows go in ascending order; each phase row is zeroed, then gets
/// its input columns in whole vectors with the lanes past the input
/// zeroed. A vector's spill past its row lands on later rows of the same
/// phase plane, which are written afterwards, or in the slack. Rows that
/// fit one vector go to `fillCompactFlatPlane`.
@inlinable @inline(__always)
func fillFlatPlane<Size, Stride, Lanes>(
    _ shape: CHWFlat<Size, Stride, Lanes>.Type, _ planes: DepthwiseCHWPlanesOperands, layout: CHWFlatLayout,
    from input: UnsafePointer<Float>, into scratch: UnsafeMutablePointer<Float>
) {
    let stride = Stride.value
    let rowFloats = layout.rowFloats, phaseFloats = layout.phaseFloats
    let width = planes.inputWidth, padLeft = planes.padLeft
    let zero = SIMD16<Float>(repeating: 0)
    if rowFloats <= 16 && width <= 16 &* stride && padLeft &+ width <= stride &* rowFloats {
        fillCompactFlatPlane(shape, planes, layout: layout, from: input, into: scratch)
        return
    }
    for paddedRow in 0..<(stride &* layout.rows) {
        let rowPhase = paddedRow % stride, i = paddedRow / stride
        let iy = paddedRow &- planes.padTop
        let inside = iy >= 0 && iy < planes.inputHeight
        for columnPhase in 0..<stride {
            let row = scratch + ((rowPhase &* stride &+ columnPhase) &* phaseFloats &+ i &* rowFloats)
            var x = 0
            while x < rowFloats {
                storeVector16(zero, row + x)
                x &+= 16
            }
        }
        guard inside else { continue }
        // Reads at most 15 floats past the row: within the next row or the
        // tensor's tail padding.
        let source = input + iy &* width
        let phaseRow = scratch + (rowPhase &* stride &* phaseFloats &+ i &* rowFloats)
        if stride == 1 {
            var x = 0
            while x < width {
                storeVector16(keepingLanes(loadVector16(source + x), below: width &- x), phaseRow + (padLeft &+ x))
                x &+= 16
            }
        } else {
            // Input column c goes to padded column c + padLeft: phase
            // (c + padLeft) % 2, column (c + padLeft) / 2.
            let evenPhase = padLeft % 2, oddPhase = 1 &- evenPhase
            var x = 0
            while x < width {
                let low = keepingLanes(loadVector16(source + x), below: width &- x)
                let high = x &+ 16 < width
                    ? keepingLanes(loadVector16(source + (x &+ 16)), below: width &- x &- 16) : zero
                storeVector16(evenLanes(low, high), phaseRow + (evenPhase &* phaseFloats &+ (x &+ padLeft) / 2))
                storeVector16(oddLanes(low, high), phaseRow + (oddPhase &* phaseFloats &+ (x &+ padLeft &+ 1) / 2))
                x &+= 32
            }
        }
    }
}

/// `fillFlatPlane` where a phase row fits one vector (`rowFloats` ≤ 16)
/// and its input columns end inside it: a row's input vector, zeros past
/// its columns, also writes its right padding and the next row's left
/// padding, so only padding rows and each phase plane's first input row
/// are zeroed, each with one vector.
@inlinable @inline(__always)
func fillCompactFlatPlane<Size, Stride, Lanes>(
    _ shape: CHWFlat<Size, Stride, Lanes>.Type, _ planes: DepthwiseCHWPlanesOperands, layout: CHWFlatLayout,
    from input: UnsafePointer<Float>, into scratch: UnsafeMutablePointer<Float>
) {
    let stride = Stride.value
    let rowFloats = layout.rowFloats, phaseFloats = layout.phaseFloats
    let width = planes.inputWidth, padLeft = planes.padLeft
    let zero = SIMD16<Float>(repeating: 0)
    let lanes = SIMD16<Int32>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
    let count = Int32(truncatingIfNeeded: width)
    let keepLow: SIMDMask<SIMD16<Int32>> = lanes .< SIMD16<Int32>(repeating: count)
    let keepHigh: SIMDMask<SIMD16<Int32>> = lanes .< SIMD16<Int32>(repeating: count &- 16)
    // Input column c goes to padded column c + padLeft: phase
    // (c + padLeft) % 2, column (c + padLeft) / 2.
    let evenOffset = (padLeft % 2) &* phaseFloats &+ padLeft / 2
    let oddOffset = (1 &- padLeft % 2) &* phaseFloats &+ (padLeft &+ 1) / 2
    for paddedRow in 0..<(stride &* layout.rows) {
        let rowPhase = paddedRow % stride, i = paddedRow / stride
        let iy = paddedRow &- planes.padTop
        let phaseRow = scratch + (rowPhase &* stride &* phaseFloats &+ i &* rowFloats)
        let inside = iy >= 0 && iy < planes.inputHeight
        if !inside || iy < stride {
            storeVector16(zero, phaseRow)
            if stride == 2 { storeVector16(zero, phaseRow + phaseFloats) }
        }
        guard inside else { continue }
        // Reads at most 15 floats past the row: within the next row or the
        // tensor's tail padding.
        let source = input + iy &* width
        let low = select(keepLow, loadVector16(source), zero)
        if stride == 1 {
            storeVector16(low, phaseRow + padLeft)
        } else {
            let high = width > 16 ? select(keepHigh, loadVector16(source + 16), zero) : zero
            storeVector16(evenLanes(low, high), phaseRow + evenOffset)
            storeVector16(oddLanes(low, high), phaseRow + oddOffset)
        }
    }
}

/// Computes one plane's flat outputs, clamped, from its phase planes in
/// `scratch`, into the outputs of `scratch`.
@inlinable @inline(__always)
func computeFlatPlane<Size, Stride, Lanes>(
    _ shape: CHWFlat<Size, Stride, Lanes>.Type, _ planes: DepthwiseCHWPlanesOperands, layout: CHWFlatLayout,
    weights: UnsafePointer<Float>, bias: Float, scratch: UnsafeMutablePointer<Float>
) {
    let size = Size.value
    // The taps in stack memory, which no output store can alias: the
    // compiler keeps them in registers, or broadcasts each from memory.
    withUnsafeTemporaryAllocation(of: Float.self, capacity: 25) { buffer in
        guard let taps = buffer.baseAddress else { return }
        for t in 0..<(size &* size) { taps[t] = weights[t] }
        // Six vectors at a time, and the last 3...8 (or all of 1 or 2)
        // in one or two groups.
        let lanes = Lanes.Vector.scalarCount
        let vectors = (layout.outputs &+ lanes &- 1) / lanes
        var v = 0
        while vectors &- v > 8 {
            flatVectors(shape, count: CHWCount6.self, planes, taps: taps, bias: bias, layout: layout, scratch: scratch, at: v &* lanes)
            v &+= 6
        }
        if vectors &- v > 6 {
            flatVectors(shape, count: CHWCount4.self, planes, taps: taps, bias: bias, layout: layout, scratch: scratch, at: v &* lanes)
            v &+= 4
        }
        let q = v &* lanes
        switch vectors &- v {
        case 1: flatVectors(shape, count: CHWCount1.self, planes, taps: taps, bias: bias, layout: layout, scratch: scratch, at: q)
        case 2: flatVectors(shape, count: CHWCount2.self, planes, taps: taps, bias: bias, layout: layout, scratch: scratch, at: q)
        case 3: flatVectors(shape, count: CHWCount3.self, planes, taps: taps, bias: bias, layout: layout, scratch: scratch, at: q)
        case 4: flatVectors(shape, count: CHWCount4.self, planes, taps: taps, bias: bias, layout: layout, scratch: scratch, at: q)
        case 5: flatVectors(shape, count: CHWCount5.self, planes, taps: taps, bias: bias, layout: layout, scratch: scratch, at: q)
        default: flatVectors(shape, count: CHWCount6.self, planes, taps: taps, bias: bias, layout: layout, scratch: scratch, at: q)
        }
    }
}

/// Copies one plane's output rows out of the flat outputs in `scratch`,
/// in ascending order: a whole vector (of 8 lanes for rows of at most 8)
/// where its spill lands on later rows of this plane, else only the row's
/// own floats.
@inlinable @inline(__always)
func copyOutFlatPlane(
    _ planes: DepthwiseCHWPlanesOperands, layout: CHWFlatLayout, from scratch: UnsafeMutablePointer<Float>,
    to output: UnsafeMutablePointer<Float>
) {
    let outputs = UnsafePointer(scratch + layout.outputOffset)
    let outputWidth = planes.outputWidth, planeEnd = planes.outputHeight &* outputWidth
    if outputWidth <= 8 {
        // Half vectors: half the bytes stored.
        for oy in 0..<planes.outputHeight {
            let value = loadVector8(outputs + oy &* layout.rowFloats)
            storeVector8Lanes(value, output + oy &* outputWidth, count: planeEnd &- oy &* outputWidth)
        }
        return
    }
    for oy in 0..<planes.outputHeight {
        let source = outputs + oy &* layout.rowFloats, destination = output + oy &* outputWidth
        var x = 0
        while x < outputWidth {
            let value = loadVector16(source + x)
            if oy &* outputWidth &+ x &+ 16 <= planeEnd {
                storeVector16(value, destination + x)
            } else {
                storeVector16(value, destination + x, count: min(16, outputWidth &- x))
            }
            x &+= 16
        }
    }
}

/// The scratch offset of tap `(ky, kx)` from an output's flat position.
@inlinable @inline(__always)
func flatTapOffset<Size, Stride, Lanes>(_ shape: CHWFlat<Size, Stride, Lanes>.Type, ky: Int, kx: Int, layout: CHWFlatLayout) -> Int {
    let stride = Stride.value
    return ((ky % stride) &* stride &+ kx % stride) &* layout.phaseFloats &+ (ky / stride) &* layout.rowFloats &+ kx / stride
}

/// `Count.value` (1...6) vectors of `Lanes` of flat outputs from position
/// `q` on, clamped, into the outputs of `scratch`: that many independent
/// sums, so that the multiply-adds of one tap overlap.
@inlinable @inline(__always)
func flatVectors<Size, Stride, Lanes, Count: CHWStaticCount>(
    _ shape: CHWFlat<Size, Stride, Lanes>.Type, count: Count.Type, _ planes: DepthwiseCHWPlanesOperands,
    taps: UnsafeMutablePointer<Float>, bias: Float, layout: CHWFlatLayout, scratch: UnsafeMutablePointer<Float>,
    at q: Int
) {
    typealias V = Lanes.Vector
    let size = Size.value, n = Count.value, w = V.scalarCount
    let start = Lanes.broadcast(bias)
    var sum0 = start, sum1 = start, sum2 = start, sum3 = start, sum4 = start, sum5 = start
    let base = UnsafePointer(scratch + q), outputs = scratch + (layout.outputOffset &+ q)
    for kx in 0..<size {
        for ky in 0..<size {
            let weight = Lanes.broadcast(taps[ky &* size &+ kx])
            let tap = base + flatTapOffset(shape, ky: ky, kx: kx, layout: layout)
            sum0 = Lanes.multiplyAdd(loadVector(tap, as: V.self), weight, sum0)
            if n > 1 { sum1 = Lanes.multiplyAdd(loadVector(tap + w, as: V.self), weight, sum1) }
            if n > 2 { sum2 = Lanes.multiplyAdd(loadVector(tap + 2 &* w, as: V.self), weight, sum2) }
            if n > 3 { sum3 = Lanes.multiplyAdd(loadVector(tap + 3 &* w, as: V.self), weight, sum3) }
            if n > 4 { sum4 = Lanes.multiplyAdd(loadVector(tap + 4 &* w, as: V.self), weight, sum4) }
            if n > 5 { sum5 = Lanes.multiplyAdd(loadVector(tap + 5 &* w, as: V.self), weight, sum5) }
        }
    }
    let lower = Lanes.broadcast(planes.lower), upper = Lanes.broadcast(planes.upper)
    storeVector(Lanes.clamp(sum0, lower: lower, upper: upper), outputs)
    if n > 1 { storeVector(Lanes.clamp(sum1, lower: lower, upper: upper), outputs + w) }
    if n > 2 { storeVector(Lanes.clamp(sum2, lower: lower, upper: upper), outputs + 2 &* w) }
    if n > 3 { storeVector(Lanes.clamp(sum3, lower: lower, upper: upper), outputs + 3 &* w) }
    if n > 4 { storeVector(Lanes.clamp(sum4, lower: lower, upper: upper), outputs + 4 &* w) }
    if n > 5 { storeVector(Lanes.clamp(sum5, lower: lower, upper: upper), outputs + 5 &* w) }
}
