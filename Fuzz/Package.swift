// swift-tools-version:5.3
// libFuzzer targets, kept in their own package because libFuzzer needs plain
// targets built with `-sanitize=fuzzer,address -parse-as-library` (see the
// docs/TESTING.md, "Fuzzing"):
// - ModelFuzzer: model bytes through every load-time check;
// - InputFuzzer: untrusted image-side bytes (PNG, JPEG and EXIF, Y4M streams,
//   `.task` bundles, raw pixel buffers);
// - ManifestFuzzer: `landmarker extract` manifests (DatasetManifest);
// - VideoProbeFuzzer: the video reader's reading of ffprobe's reports and
//   ffmpeg's log lines, and what it concludes from them (VideoProbe,
//   FFmpegLogLine, VideoShortfall);
// - YUVFuzzer: YUV frames of fuzzed sizes, strides and formats through
//   YUVConversion (libyuv);
// - Y4MFuzzer: YUV4MPEG2 streams through Y4MReader.
// ManifestFuzzer and VideoProbeFuzzer compile the parsers' own source files,
// linked into their folders (symbolic links): the landmarker executable and
// VideoFiles are no library products. FuzzSupport holds what the targets share.
import Foundation
import PackageDescription

let fuzzerSwiftSettings: [SwiftSetting] = [.unsafeFlags(["-sanitize=fuzzer,address", "-parse-as-library"])]

// InputFuzzer reads `.task` bundles with MediaPipeTasksVision's bundle reader and writer, which
// have `package` access: it is compiled with the package name SwiftPM gives the landmarker
// package (its folder's name, lowercased, as a C identifier), so it sees them. A 5.3 manifest
// passes no package name of its own.
let landmarkerFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()
let landmarkerPackageName = (landmarkerFolder.first.map { $0.isNumber } ?? true ? "_" : "")
    + String(landmarkerFolder.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
let fuzzerLinkerSettings: [LinkerSetting] = [.unsafeFlags(["-sanitize=fuzzer,address"])]

let package = Package(
    name: "ModelFuzzer",
    dependencies: [
        .package(name: "landmarker", path: ".."),
    ],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [.product(name: "ImageIO", package: "landmarker")],
            swiftSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]),
        .target(
            name: "ModelFuzzer",
            dependencies: [.product(name: "Inference", package: "landmarker")],
            swiftSettings: fuzzerSwiftSettings,
            linkerSettings: fuzzerLinkerSettings),
        .target(
            name: "InputFuzzer",
            dependencies: [
                "FuzzSupport",
                .product(name: "ImageIO", package: "landmarker"),
                .product(name: "MediaPipeTasksVision", package: "landmarker"),
            ],
            swiftSettings: fuzzerSwiftSettings + [.unsafeFlags(["-package-name", landmarkerPackageName])],
            linkerSettings: fuzzerLinkerSettings),
        .target(
            name: "ManifestFuzzer", dependencies: ["FuzzSupport"], swiftSettings: fuzzerSwiftSettings,
            linkerSettings: fuzzerLinkerSettings),
        .target(
            name: "VideoProbeFuzzer", dependencies: ["FuzzSupport"], swiftSettings: fuzzerSwiftSettings,
            linkerSettings: fuzzerLinkerSettings),
        .target(
            name: "YUVFuzzer",
            dependencies: ["FuzzSupport", .product(name: "ImageIO", package: "landmarker")],
            swiftSettings: fuzzerSwiftSettings, linkerSettings: fuzzerLinkerSettings),
        .target(
            name: "Y4MFuzzer",
            dependencies: ["FuzzSupport", .product(name: "ImageIO", package: "landmarker")],
            swiftSettings: fuzzerSwiftSettings, linkerSettings: fuzzerLinkerSettings),
    ]
)
