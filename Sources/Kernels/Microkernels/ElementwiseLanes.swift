import KernelTemplates

/// A float function applied to eight lanes at once, the body of an element-wise unary op's
/// fast kernel (`runLanes`). Mark a conformance's `callAsFunction` `@inline(__always)`:
/// specialised but not inlined, RELU's was a call for every eight elements, and a
/// 64 × 64 × 24 RELU took 23 µs rather than 10 (one thread, Zen 4).
protocol LaneFunction {
    func callAsFunction(_ x: SIMD8<Float>) -> SIMD8<Float>
}

/// Writes `output[i] = function(input[i])` for `i` in `0..<count`, eight elements at a time
/// (the last group reads past the input's end, which `KernelIO` allows, and stores only its
/// elements), split over `runner` in memory-bound tasks. Each element's result depends only
/// on its own input, so it is the same for every split.
func runLanes<Function: LaneFunction>(
    _ function: Function, count: Int, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
    runner: ParallelRunner
) {
    runner.forEach(
        (count + 7) / 8, minimumPerChunk: memoryBoundTaskGrain / 8,
        LaneGroups(function: function, input: input, output: output, count: count))
}

/// The groups of eight elements of one `runLanes` call, for `ParallelRunner.forEach`: group
/// `g` holds elements `8g ..< min(8g + 8, count)`.
private struct LaneGroups<Function: LaneFunction>: ParallelWork {
    let function: Function
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let count: Int

    // Inlined into each op's specialised `forEach`, so that `function` is inlined too rather than
    // called through its witness table for every group of eight.
    @inline(__always)
    func run(_ groups: Range<Int>, thread: Int) {
        for group in groups {
            let start = group * 8
            let y = function(loadVector8(input + start))
            if start + 8 <= count {
                storeVector8(y, output + start)
            } else {
                storeVector8(y, output + start, count: count - start)
            }
        }
    }
}
