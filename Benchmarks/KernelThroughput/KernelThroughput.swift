import Benchmark
import BenchmarkSupport
import Kernels

/// Custom metrics: throughput of one kernel run and its share of the measured peak.
enum ThroughputMetric {
    /// Million floating-point operations per second (1 000 MFLOP/s = 1 GFLOP/s).
    static let mflops = BenchmarkMetric.custom("MFLOP/s", polarity: .prefersLarger, useScalingFactor: false)
    /// Percent of the nominal FMA peak of the threads used (`PeakReference.gflops(threads:)`).
    static let percentOfPeak = BenchmarkMetric.custom("% of peak", polarity: .prefersLarger, useScalingFactor: false)
}

/// The thread counts every kernel is measured at.
let threadCounts = [1, 2]

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, ThroughputMetric.mflops, ThroughputMetric.percentOfPeak],
        units: [ThroughputMetric.mflops: .count, ThroughputMetric.percentOfPeak: .count],
        warmupIterations: 2,
        maxDuration: .seconds(1),
        maxIterations: 1_000)

    // One core's (and two cores') fp32 peak with the kernels' code generation;
    // the AVX-512 loop only where the CPU runs the AVX-512 kernels.
    let peakLoops: [(name: String, loop: PeakReference.Loop, threads: Int)] = [
        ("peak FMA SIMD8 x12 chains 1t", .simd8Chains, 1),
        ("peak FMA SIMD8 x12 chains 2t", .simd8Chains, 2),
    ] + (KernelInstructionSet.avx512.isSupported ? [
        ("peak FMA SIMD16 AVX-512 x12 chains 1t", .simd16AVX512Chains, 1),
        ("peak FMA SIMD16 AVX-512 x12 chains 2t", .simd16AVX512Chains, 2),
    ] : [])
    for peak in peakLoops {
        Benchmark(peak.name) { benchmark in
            let gflops = PeakReference.runOnce(peak.loop, threads: peak.threads)
            benchmark.record(gflops: gflops, threads: peak.threads)
        } setup: {
            _ = PeakReference.oneCore
        }
    }

    for threads in threadCounts where threads > 1 { HandOver.register(threads: threads) }

    // The models' heaviest convolution shapes (read from their files), through the op's fast kernel.
    let shapes: [LayerShape]
    do {
        shapes = try ModelLayers.dense() + ModelLayers.channelMajor()
    } catch {
        fatalError("KernelThroughput reads its layers from the models: \(error)")
    }
    for shape in shapes {
        for threads in threadCounts {
            Benchmark("\(shape.name) \(threads)t") { (benchmark, layer: PreparedLayer) in
                let runner = ParallelRunner(threadCount: threads)
                let clock = ContinuousClock()
                let elapsed = clock.measure { layer.run(on: runner) }
                benchmark.record(gflops: Double(layer.flops) / elapsed.seconds / 1e9, threads: threads)
            } setup: {
                _ = PeakReference.oneCore
                return try PreparedLayer(shape)
            }
        }
    }
}

extension Benchmark {
    /// Records one run's throughput and its share of the peak on `threads` threads.
    func record(gflops: Double, threads: Int) {
        measurement(ThroughputMetric.mflops, Int((gflops * 1e3).rounded()))
        measurement(
            ThroughputMetric.percentOfPeak, Int((100 * gflops / PeakReference.gflops(threads: threads)).rounded()))
    }
}
