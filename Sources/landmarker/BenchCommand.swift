import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Inference
import Kernels

#if canImport(Glibc)
import Glibc
#endif

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Time a model's invoke: median, p10 and p90 latency and GFLOP/s.",
        discussion: """
            The fast kernels use the AVX-512 microkernels where the CPU has them; \
            LANDMARKER_NO_AVX512=1 in the environment times the baseline (AVX2) ones instead. \
            The rate is also given as a share of the kernel family's fp32 multiply-add peak, \
            measured on this core before the model runs (the thread count times one core's peak).
            """)

    @Argument(help: "A .tflite file, or a model name looked up in the model folders.")
    var model: String

    @Option(parsing: .unconditional, help: "Threads for the fast kernels.")
    var threads = 1

    @Option(parsing: .unconditional, help: "Timed runs.")
    var runs = 50

    @Option(parsing: .unconditional, help: "Untimed warm-up runs.")
    var warmup = 5

    @Flag(help: "Time the reference kernels instead of the fast ones.")
    var reference = false

    @Flag(help: "Run PAD, ADD and PRELU as operators of their own, not folded into the convolutions.")
    var unfused = false

    @Flag(help: "Run 1×1 convolutions with mostly-zero filters as dense ones, not as sparse kernels on channel-major tensors.")
    var dense = false

    @Option(name: .customLong("skip-output"),
            help: "A graph output not to compute, by its position in `inspect`'s list (repeatable): the operators only it needs are left out.")
    var skippedOutputs: [Int] = []

    @Flag(help: "Also print the time per operator type (one profiled pass per run).")
    var perOp = false

    @Flag(help: "Also print every operator in execution order with its output shape, multiply-accumulates, mean time and GFLOP/s, and its fastest pass (one profiled pass per run).")
    var perLayer = false

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func validate() throws {
        guard threads >= 1 && threads <= 256 else { throw ValidationError("--threads must be between 1 and 256") }
        guard runs >= 1 && runs <= 1_000_000 else { throw ValidationError("--runs must be between 1 and 1000000") }
        guard warmup >= 0 && warmup <= 1_000_000 else { throw ValidationError("--warmup must be between 0 and 1000000") }
    }

    func run() throws {
        let path = try ModelLocation.resolve(model)
        let interpreter: Interpreter
        do {
            interpreter = try Interpreter(
                contentsOfFile: path,
                options: .init(
                    threadCount: threads, mode: reference ? .reference : .fast, fusesOperators: !unfused,
                    usesSparseKernels: !dense, weightCache: .standard, skippedOutputs: Set(skippedOutputs)))
        } catch {
            throw CommandFailure("\(path): \(error)")
        }
        // A deterministic input in [0, 1).
        for k in interpreter.inputs.indices {
            try interpreter.withInputBuffer(at: k) { buffer in
                for i in buffer.indices { buffer[i] = Float((i * 7919) % 1000) / 1000 }
            }
        }
        let family = interpreter.options.instructionSet
        let peakPerCore = FMAPeak.measure(family)
        for _ in 0..<warmup { interpreter.invoke() }
        let clock = ContinuousClock()
        var milliseconds: [Double] = []
        var cpuMilliseconds: [Double] = []
        var perOpSeconds: [String: Double] = [:]
        var layers: [LayerTiming] = []
        for _ in 0..<runs {
            let cpuStart = threadCPUMilliseconds()
            let elapsed = clock.measure { interpreter.invoke() }
            cpuMilliseconds.append(threadCPUMilliseconds() - cpuStart)
            milliseconds.append(Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) * 1e-15)
            if perOp || perLayer {
                interpreter.invokeProfiled { timing in
                    perOpSeconds[timing.opName, default: 0] += timing.seconds
                    if timing.index == layers.count {
                        layers.append(LayerTiming(
                            index: timing.index, op: timing.opName, outputShape: timing.outputShape?.description ?? "",
                            multiplyAccumulates: timing.multiplyAccumulates, ms: 0, fastestMs: .infinity))
                    }
                    layers[timing.index].ms += timing.seconds * 1e3 / Double(runs)
                    layers[timing.index].fastestMs = min(layers[timing.index].fastestMs, timing.seconds * 1e3)
                }
            }
        }
        milliseconds.sort()
        cpuMilliseconds.sort()
        func percentile(_ p: Double) -> Double {
            milliseconds[min(milliseconds.count - 1, Int((Double(milliseconds.count - 1) * p).rounded()))]
        }
        let cpuMedian = cpuMilliseconds[(cpuMilliseconds.count - 1) / 2]
        let median = percentile(0.5)
        let gflops = Double(interpreter.summary.flops) / (median * 1e-3) / 1e9
        let percentOfPeak = peakPerCore.map { 100 * gflops / (Double(threads) * $0) }
        let opMilliseconds = perOpSeconds.mapValues { $0 * 1e3 / Double(runs) }
        let kernels = reference ? "reference" : "fast \(family)"
        if json {
            let report = BenchReport(
                model: path, threads: threads, mode: reference ? "reference" : "fast",
                instructionSet: family.rawValue, runs: runs,
                medianMs: median, p10Ms: percentile(0.1), p90Ms: percentile(0.9),
                callingThreadCPUMedianMs: cpuMedian, flops: interpreter.summary.flops, gflops: gflops,
                fmaPeakGflopsPerCore: peakPerCore, percentOfFmaPeak: percentOfPeak,
                perOpMs: perOp ? opMilliseconds : nil, perLayer: perLayer ? layers : nil)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print("\(path): \(kernels) kernels, \(threads) thread(s), \(runs) runs")
            print(formatted("median %.3f ms  p10 %.3f ms  p90 %.3f ms  %.1f GFLOP/s  calling thread's CPU %.3f ms",
                         median, percentile(0.1), percentile(0.9), gflops, cpuMedian))
            if let peakPerCore, let percentOfPeak {
                // With a peak, the baseline family is the AVX2 + FMA build.
                let familyName = family == .avx512 ? "AVX-512" : "AVX2"
                print(formatted("%.1f %% of ", percentOfPeak) + familyName
                      + formatted(" FMA peak (%ld × %.1f GFLOP/s, one core's measured peak × threads)",
                                  threads, peakPerCore))
            }
            if perOp {
                let total = opMilliseconds.values.reduce(0, +)
                let width = opMilliseconds.keys.map(\.count).max() ?? 0
                for (op, ms) in opMilliseconds.sorted(by: { $0.value > $1.value }) {
                    let name = padded(op, to: width)
                    print("  " + name + formatted(" %8.3f ms  %5.1f %%", ms, 100 * ms / max(total, 1e-12)))
                }
            }
            if perLayer {
                printLayers(layers)
            }
        }
    }
}

/// One operator's times over the profiled passes of `bench --per-layer`.
struct LayerTiming: Encodable {
    let index: Int
    let op: String
    let outputShape: String
    let multiplyAccumulates: Int
    /// Mean over the passes, ms.
    var ms: Double
    /// The fastest pass, ms: on a host whose speed changes from second to
    /// second, steadier than the mean for comparing two builds layer by layer.
    var fastestMs: Double
}

/// The `--per-layer` table: one row per operator in execution order, its
/// mean time and share, its fastest pass, and the rate of each.
private func printLayers(_ layers: [LayerTiming]) {
    let total = layers.map(\.ms).reduce(0, +)
    let opWidth = layers.map(\.op.count).max() ?? 0
    let shapeWidth = layers.map(\.outputShape.count).max() ?? 0
    print("  #    " + padded("op", to: opWidth) + "  "
          + padded("output", to: shapeWidth) + "      MMAC        ms      %  GFLOP/s   fastest  GFLOP/s")
    func gflops(_ layer: LayerTiming, _ ms: Double) -> Double {
        ms > 0 ? 2 * Double(layer.multiplyAccumulates) / (ms * 1e-3) / 1e9 : 0
    }
    for layer in layers {
        print(formatted("  %-4ld ", layer.index)
              + padded(layer.op, to: opWidth) + "  "
              + padded(layer.outputShape, to: shapeWidth)
              + formatted(" %9.2f %9.3f %6.1f %8.1f %9.3f %8.1f", Double(layer.multiplyAccumulates) / 1e6, layer.ms,
                       100 * layer.ms / max(total, 1e-12), gflops(layer, layer.ms), layer.fastestMs,
                       gflops(layer, layer.fastestMs)))
    }
}

/// The JSON form of `landmarker bench --json`.
struct BenchReport: Encodable {
    let model: String
    let threads: Int
    let mode: String
    /// The microkernel family of the fast kernels (`KernelInstructionSet`).
    let instructionSet: String
    let runs: Int
    let medianMs: Double
    let p10Ms: Double
    let p90Ms: Double
    /// Median CPU time of the calling thread per invoke, in ms: at one thread
    /// all of the work, and unlike the wall clock not stretched by other
    /// processes taking the core (at more threads it leaves out the helpers).
    let callingThreadCPUMedianMs: Double
    /// Floating-point operations of one invoke (multiply-accumulates × 2).
    let flops: Int
    let gflops: Double
    /// One core's measured fp32 multiply-add peak for `instructionSet`, in
    /// GFLOP/s (`FMAPeak`); absent in the portable build.
    let fmaPeakGflopsPerCore: Double?
    /// `gflops` as a percentage of `threads` × `fmaPeakGflopsPerCore`.
    let percentOfFmaPeak: Double?
    let perOpMs: [String: Double]?
    /// Every operator in execution order, with `--per-layer`.
    let perLayer: [LayerTiming]?
}

/// CPU time the calling thread has used, in milliseconds (0 where the
/// platform has no per-thread clock).
private func threadCPUMilliseconds() -> Double {
    #if canImport(Glibc)
    var time = timespec()
    guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return 0 }
    return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) * 1e-6
    #else
    return 0
    #endif
}
