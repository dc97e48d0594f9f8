import Benchmark
import BenchmarkSupport
import Inference

/// The thread counts every model is measured at.
let threadCounts = [1, 2]

/// One `Interpreter.invoke` of each model with the fast kernels, at 1 and 2
/// threads: wall clock and allocations.
///
/// `invoke` must allocate nothing once the interpreter has run once. The setup
/// invokes the model before measuring, the tolerance on `mallocCountTotal` is
/// zero, and `Thresholds/ModelLatency.<benchmark>.p90.json` holds 0, so
/// `swift package benchmark thresholds check --target ModelLatency` fails on any
/// allocation inside `invoke`. (CPU-time metrics are left out: sampling them
/// allocates inside the measured region.)
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .milliseconds,
        warmupIterations: 3,
        maxDuration: .seconds(5),
        maxIterations: 200,
        thresholds: [.mallocCountTotal: .init(absolute: BenchmarkThresholds.Absolute.strict)])

    for name in ModelFiles.names {
        for threads in threadCounts {
            Benchmark("\(name)-\(threads)t") { (_, interpreter: Interpreter) in
                interpreter.invoke()
            } setup: {
                let interpreter = try Interpreter(
                    contentsOfFile: ModelFiles.path(of: name),
                    options: .init(threadCount: threads, mode: .fast))
                for input in interpreter.inputs.indices {
                    try interpreter.withInputBuffer(at: input) { buffer in
                        for i in buffer.indices { buffer[i] = Float(i % 256) / 255 }
                    }
                }
                // The first call may still touch memory for the first time; the
                // measured ones must not allocate.
                interpreter.invoke()
                return interpreter
            }
        }
    }
}
