import Benchmark
import Foundation
import BenchmarkSupport
import Inference

/// Custom metrics of one model load, from the process's resident set size.
enum LoadMetric {
    /// The most resident memory the load needed at any moment, above what was
    /// resident when it started (KiB): the file's pages while it is read, the
    /// weights of one operator while they are decoded and packed, the packed
    /// weights, the arena.
    static let peakResident = BenchmarkMetric.custom("Peak RSS growth (KiB)", useScalingFactor: false)
    /// Resident memory the loaded interpreter holds (KiB): packed weights,
    /// activation arena, scratch memory.
    static let retainedResident = BenchmarkMetric.custom("Retained RSS growth (KiB)", useScalingFactor: false)
}

/// Loading each of the six models as the landmarkers load them — the fast
/// kernels with operators fused, and pose_detection's sparse 1×1 convolutions
/// as a channel-major region — from its `.tflite` file, on one thread and on two
/// (which also counts starting the interpreter's helper thread): wall clock and
/// resident memory. Each model is loaded packing its weights afresh, and again
/// ("cached") with a weight cache (`WeightCache`, a folder made for the run),
/// whose file the warm-up loads write and the measured ones map: a load as the
/// landmarkers and the tool make it from their second run on.
///
/// Each iteration creates and releases one `Interpreter`. Before it, free
/// heap memory is handed back to the system (`malloc_trim`) and the kernel's
/// resident high-water mark is reset (`/proc/self/clear_refs`), so that the
/// memory metrics count what this load touches, not what an earlier one left.
/// Only `Interpreter(contentsOfFile:options:)` is timed.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, LoadMetric.peakResident, LoadMetric.retainedResident],
        timeUnits: .milliseconds,
        units: [LoadMetric.peakResident: .count, LoadMetric.retainedResident: .count],
        warmupIterations: 2,
        maxDuration: .seconds(3),
        maxIterations: 100)

    // One thread, and two: a load prepares its operators on the interpreter's
    // threads (and starts the helper thread that runs them with it).
    // One folder for every run: a rebuilt benchmark replaces the files it finds there.
    let cacheFolder = FileManager.default.temporaryDirectory.appendingPathComponent("landmarker-benchmark-weights").path
    for (threads, threadSuffix) in [(1, ""), (2, " 2 threads")] {
        for cache in [nil, WeightCache(folder: cacheFolder)] {
            let options = Interpreter.Options(threadCount: threads, usesSparseKernels: true, weightCache: cache)
            let suffix = threadSuffix + (cache == nil ? "" : " cached")
            for name in ModelFiles.names {
                Benchmark(name + suffix) { benchmark in
                    let path = try ModelFiles.path(of: name)
                    ResidentMemory.releaseFreeHeap()
                    try ResidentMemory.resetPeak()
                    let before = try ResidentMemory.current()
                    benchmark.startMeasurement()
                    let interpreter = try Interpreter(contentsOfFile: path, options: options)
                    benchmark.stopMeasurement()
                    let after = try ResidentMemory.current()
                    let peak = try ResidentMemory.peak()
                    benchmark.measurement(LoadMetric.peakResident, max(0, peak - before) / 1024)
                    benchmark.measurement(LoadMetric.retainedResident, max(0, after - before) / 1024)
                    blackHole(interpreter)
                }
            }
        }
    }
}
