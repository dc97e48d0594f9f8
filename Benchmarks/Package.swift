// swift-tools-version: 6.1
import Foundation
import PackageDescription

// Benchmarks live in their own package so that the library package keeps no
// dependency beyond the Swift toolchain. The root package is used by path, so
// its native code generation (AVX2 + FMA on x86-64) applies here too; the
// benchmark targets get the same flags so the peak-FMA loop is compiled the
// way the kernels are. `LANDMARKER_PORTABLE=1` turns both off, as it does for
// the root package.
//
// Run from this folder:
//     swift package benchmark                                  # everything
//     swift package benchmark --target ModelLatency
//     swift package benchmark --target ModelLoad                     # load time and memory per model
//     swift package benchmark thresholds check --target ModelLatency   # zero-allocation gate
//
// SwiftPM names a path dependency after its folder, and this package is
// itself named after its folder `Benchmarks` (identity `benchmarks`), so the
// repository must not be checked out in a folder called `benchmarks`.
#if arch(x86_64)
let hostIsX86 = true
#else
let hostIsX86 = false
#endif
let nativeCodegen = hostIsX86 && Context.environment["LANDMARKER_PORTABLE"] != "1"

/// The code generation the library's kernels are built with.
let kernelCodegen: [SwiftSetting] = nativeCodegen ? [.unsafeFlags(["-target-cpu", "haswell"])] : []

/// SwiftPM names a path dependency after its folder, so the root package's
/// identity is the name of the folder the repository is checked out in.
let root = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent.lowercased()

let benchmarkPlugin: [Target.PluginUsage] = [.plugin(name: "BenchmarkPlugin", package: "benchmark")]

let package = Package(
    name: "landmarker-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(name: "BenchmarkSupport", path: "Support", swiftSettings: kernelCodegen),
        .executableTarget(
            name: "ModelLatency",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Inference", package: root),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "ModelLatency",
            swiftSettings: kernelCodegen,
            plugins: benchmarkPlugin),
        .executableTarget(
            name: "ModelLoad",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Inference", package: root),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "ModelLoad",
            swiftSettings: kernelCodegen,
            plugins: benchmarkPlugin),
        .executableTarget(
            name: "KernelThroughput",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "FlatBufferReader", package: root),
                .product(name: "Kernels", package: root),
                .product(name: "Tensor", package: root),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "KernelThroughput",
            swiftSettings: kernelCodegen,
            plugins: benchmarkPlugin),
    ]
)
