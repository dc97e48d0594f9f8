/// Elements a memory-bound task should at least touch before it is worth
/// handing to another thread (128 KiB of floats: far more than the cost of
/// waking a worker).
let memoryBoundTaskGrain = 32_768

/// Splits `0..<count` into at most `runner.threadCount` contiguous ranges of
/// at least `minimumPerTask` items (one range when there is less work than
/// that) and calls `body` once per range, in parallel. `body` must only
/// write memory that its range owns.
@inline(__always)
func forEachRange(
    _ count: Int, minimumPerTask: Int, runner: ParallelRunner, _ body: (Range<Int>) -> Void
) {
    guard count > 0 else { return }
    let parts = max(1, min(runner.threadCount, count / max(1, minimumPerTask)))
    if parts == 1 {
        body(0..<count)
        return
    }
    runner.forEach(parts) { part in
        body((count * part / parts)..<(count * (part + 1) / parts))
    }
}

/// The number of rows of `rowLength` elements a memory-bound task should at
/// least take (at least one).
@inline(__always)
func minimumRowsPerTask(rowLength: Int) -> Int {
    max(1, memoryBoundTaskGrain / max(1, rowLength))
}

/// Copies `count` floats from `source` to `destination` (non-overlapping).
@inline(__always)
func copyFloats(_ source: UnsafePointer<Float>, to destination: UnsafeMutablePointer<Float>, count: Int) {
    destination.update(from: source, count: count)
}

/// Sets `count` floats at `destination` to +0.
@inline(__always)
func zeroFloats(_ destination: UnsafeMutablePointer<Float>, count: Int) {
    destination.update(repeating: 0, count: count)
}
