// swift-tools-version: 6.0
import Foundation
import PackageDescription

// MARK: - Fast-kernel code generation
//
// The SIMD kernels need AVX2 + FMA code generation to be fast: without it,
// `SIMD8<Float>.addingProduct` lowers to a software `fmaf` call per lane.
// SwiftPM refuses `unsafeFlags` in packages consumed as versioned dependencies,
// so the flags are added only when this package is built on its own (the
// repository checkout) on an x86-64 host, and never when it sits in another
// package's `checkouts/` folder. Set `LANDMARKER_PORTABLE=1` to force the
// portable build (any x86-64 or arm64 CPU; kernels use separate mul + add).
// The kernels check `LANDMARKER_FMA` at compile time to pick fused or
// separate multiply-add; both paths are tested.
let environment = ProcessInfo.processInfo.environment
let builtAsDependency = Context.packageDirectory.contains("/checkouts/")
    || Context.packageDirectory.contains("/SourcePackages/")
#if arch(x86_64)
let hostIsX86 = true
#else
let hostIsX86 = false
#endif
let nativeCodegen = hostIsX86 && !builtAsDependency && environment["LANDMARKER_PORTABLE"] != "1"

let librarySettings: [SwiftSetting] = nativeCodegen
    ? [.unsafeFlags(["-target-cpu", "haswell"]), .define("LANDMARKER_FMA")]
    : []

// The compute targets (kernels, interpreter, image warps, pipelines) are
// optimised in debug builds too: unoptimised SIMD code is tens of times
// slower, which would make every model test take minutes. Only where
// unsafe flags are allowed, as above.
let computeSettings: [SwiftSetting] = librarySettings
    + (nativeCodegen ? [.unsafeFlags(["-O"], .when(configuration: .debug))] : [])

// AVX-512 microkernels are chosen at run time, not at build time: the
// library must still run on x86-64 CPUs without AVX-512. They live in their
// own target, `KernelsAVX512`, the only code compiled with
// `-target-cpu skylake-avx512` (AVX-512 F/CD/BW/DQ/VL on top of Haswell's
// AVX2 + FMA); with it `SIMD16<Float>.addingProduct` is one 512-bit
// `vfmadd231ps`. Kernels calls into it only after
// `KernelInstructionSet.detected` has found those features in
// /proc/cpuinfo (and `LANDMARKER_NO_AVX512` is not `1`), and its functions
// are not `@inlinable`, so no AVX-512 instruction reaches code that runs
// unconditionally. Algorithms both families share are `@inlinable` generics of
// `KernelTemplates`, which each family instantiates with a marker type of its
// own, so no specialisation compiled here can stand in for the AVX2 one
// (scripts/check_avx512_isolation.sh checks the binary). The target exists
// only with the native flags above; `LANDMARKER_AVX512` tells Kernels it is there.
// LLVM's function merging is off there: it folds identical functions of shared linkage (such as
// the protocol witnesses of two marker types with the same vector operations) into one body
// without a symbol, which a disassembler attributes to whatever function precedes it in the
// binary, so that scripts/check_avx512_isolation.sh could not tell whose code it is.
let avx512Settings: [SwiftSetting] = [
    .unsafeFlags(["-target-cpu", "skylake-avx512"]),
    .unsafeFlags(["-Xfrontend", "-disable-llvm-merge-functions-pass"]),
    .unsafeFlags(["-O"], .when(configuration: .debug)),
]
let avx512Targets: [Target] = nativeCodegen
    ? [.target(name: "KernelsAVX512", dependencies: ["KernelTemplates"], swiftSettings: avx512Settings)]
    : []
let kernelsDependencies: [Target.Dependency] = ["Tensor", "FlatBufferReader", "KernelTemplates", "SystemInterface"]
    + (nativeCodegen ? ["KernelsAVX512"] : [])
let kernelsSettings: [SwiftSetting] = computeSettings + (nativeCodegen ? [.define("LANDMARKER_AVX512")] : [])

// The commit a build comes from, for `landmarker --version`: scripts/build_release.sh passes it
// in LANDMARKER_BUILD_COMMIT (hex digits, "-dirty" when the working tree had changes); other
// builds report "unknown". Only a well-formed value reaches the C define.
let buildCommit = environment["LANDMARKER_BUILD_COMMIT"].flatMap {
    $0.range(of: "^[0-9a-f]{7,40}(-dirty)?$", options: .regularExpression) != nil ? $0 : nil
} ?? "unknown"

let package = Package(
    name: "landmarker",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "FlatBufferReader", targets: ["FlatBufferReader"]),
        .library(name: "Tensor", targets: ["Tensor"]),
        .library(name: "Kernels", targets: ["Kernels"]),
        .library(name: "Inference", targets: ["Inference"]),
        .library(name: "ImageIO", targets: ["ImageIO"]),
        .library(name: "MediaPipeTasksVision", targets: ["MediaPipeTasksVision"]),
        .library(name: "MLKit", targets: ["MLKit"]),
        .executable(name: "landmarker", targets: ["landmarker"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation` (scripts/build_docs.sh): the DocC catalogs of
        // MediaPipeTasksVision, MLKit and Inference. A plugin only: nothing of it is linked.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // The POSIX plumbing every module above shares (errno text, EINTR-retrying calls, a
        // read-only file mapping, pthread locks): imports only the C library, declares only
        // `package` symbols, and is no product.
        .target(name: "SystemInterface", swiftSettings: librarySettings),
        .target(name: "FlatBufferReader", dependencies: ["Tensor", "SystemInterface"], swiftSettings: librarySettings),
        .target(name: "Tensor", swiftSettings: librarySettings),
        // Kernel algorithms written once, generic over the vector type and a family marker;
        // each family's target instantiates them with its own code generation.
        .target(name: "KernelTemplates", swiftSettings: computeSettings),
        .target(name: "Kernels", dependencies: kernelsDependencies, swiftSettings: kernelsSettings),
        .target(
            name: "Inference",
            dependencies: ["FlatBufferReader", "Tensor", "Kernels", "SystemInterface"],
            swiftSettings: computeSettings),
        .systemLibrary(
            name: "CLibPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(
            name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        // Debian's libyuv-dev has no pkg-config file; the module map links libyuv itself.
        .systemLibrary(name: "CLibYUV", providers: [.apt(["libyuv-dev"])]),
        .target(
            name: "ImageIO", dependencies: ["CLibPNG", "CTurboJPEG", "CLibYUV", "SystemInterface"],
            swiftSettings: computeSettings),
        .target(
            name: "Pipeline",
            dependencies: ["Inference", "Kernels", "ImageIO", "Tensor"],
            swiftSettings: computeSettings),
        .target(
            name: "MediaPipeTasksVision",
            dependencies: ["Pipeline", "Inference", "Kernels", "ImageIO", "FlatBufferReader", "Tensor", "SystemInterface"],
            swiftSettings: computeSettings),
        .target(name: "MLKit", dependencies: ["MediaPipeTasksVision", "ImageIO", "SystemInterface"]),
        .target(name: "VideoFiles", dependencies: ["ImageIO", "SystemInterface"]),
        .target(name: "CBuildInfo", cSettings: [.define("LANDMARKER_BUILD_COMMIT", to: "\"\(buildCommit)\"")]),
        .executableTarget(
            name: "landmarker",
            dependencies: [
                "CBuildInfo",
                "Inference",
                "Kernels",
                "MediaPipeTasksVision",
                "ImageIO",
                "VideoFiles",
                "SystemInterface",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: librarySettings),
        // Examples
        .executableTarget(name: "PoseImageExample", dependencies: ["MediaPipeTasksVision"], path: "Examples/PoseImageExample"),
        .executableTarget(name: "PoseVideoExample", dependencies: ["MediaPipeTasksVision"], path: "Examples/PoseVideoExample"),
        .executableTarget(
            name: "PoseLiveStreamExample", dependencies: ["MediaPipeTasksVision"], path: "Examples/PoseLiveStreamExample"),
        .executableTarget(name: "HandImageExample", dependencies: ["MediaPipeTasksVision"], path: "Examples/HandImageExample"),
        .executableTarget(name: "HandVideoExample", dependencies: ["MediaPipeTasksVision"], path: "Examples/HandVideoExample"),
        .executableTarget(
            name: "HandLiveStreamExample", dependencies: ["MediaPipeTasksVision"], path: "Examples/HandLiveStreamExample"),
        .executableTarget(name: "MLKitSyncExample", dependencies: ["MLKit"], path: "Examples/MLKitSyncExample"),
        .executableTarget(name: "MLKitAsyncExample", dependencies: ["MLKit"], path: "Examples/MLKitAsyncExample"),
        .executableTarget(
            name: "PortedCameraApp", dependencies: ["MediaPipeTasksVision", "MLKit", "ImageIO"],
            path: "Examples/PortedCameraApp"),
        .target(name: "TestSupport", dependencies: ["Tensor", "ImageIO"], path: "Tests/TestSupport"),
        .testTarget(name: "SystemInterfaceTests", dependencies: ["SystemInterface"]),
        .testTarget(name: "FlatBufferReaderTests", dependencies: ["FlatBufferReader", "TestSupport"]),
        .testTarget(name: "TensorTests", dependencies: ["Tensor", "TestSupport"]),
        .testTarget(
            name: "KernelsTests", dependencies: ["Kernels", "KernelTemplates", "Tensor", "TestSupport", "Inference", "FlatBufferReader"],
            swiftSettings: librarySettings),
        .testTarget(
            name: "InferenceTests", dependencies: ["Inference", "FlatBufferReader", "Kernels", "Tensor", "TestSupport"]),
        .testTarget(name: "ImageIOTests", dependencies: ["ImageIO", "CLibYUV", "TestSupport"]),
        .testTarget(name: "VideoFilesTests", dependencies: ["VideoFiles", "ImageIO", "TestSupport"]),
        // The command-line tool's own logic (output planning, exit statuses), on the executable's module.
        .testTarget(name: "LandmarkerCLITests", dependencies: ["landmarker", "VideoFiles", "ImageIO"]),
        // What the three landmark test targets share: MediaPipe references, the graphs as the
        // landmarkers build them, the acceptance criteria.
        .target(
            name: "LandmarkTestSupport", dependencies: ["Pipeline", "Inference", "Kernels", "TestSupport"],
            path: "Tests/LandmarkTestSupport"),
        .testTarget(
            name: "PipelineTests",
            dependencies: ["Pipeline", "ImageIO", "Inference", "Kernels", "LandmarkTestSupport", "TestSupport"]),
        .testTarget(
            name: "MediaPipeTasksVisionTests",
            dependencies: [
                "MediaPipeTasksVision", "Pipeline", "ImageIO", "Inference", "Kernels", "LandmarkTestSupport", "TestSupport",
            ]),
        .testTarget(
            name: "MLKitTests",
            dependencies: ["MLKit", "MediaPipeTasksVision", "ImageIO", "LandmarkTestSupport", "TestSupport"]),
    ] + avx512Targets
)
