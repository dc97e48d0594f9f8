// swift-tools-version:5.3
// libFuzzer targets, kept in their own package because libFuzzer needs plain
// targets built with `-sanitize=fuzzer,address -parse-as-library` (see the
// README's "Fuzzing"):
// - ModelFuzzer: model bytes through every load-time check;
// - InputFuzzer: untrusted image-side bytes (PNG, JPEG and EXIF, Y4M streams,
//   `.task` bundles, raw pixel buffers).
import PackageDescription

let fuzzerSwiftSettings: [SwiftSetting] = [.unsafeFlags(["-sanitize=fuzzer,address", "-parse-as-library"])]
let fuzzerLinkerSettings: [LinkerSetting] = [.unsafeFlags(["-sanitize=fuzzer,address"])]

let package = Package(
    name: "ModelFuzzer",
    dependencies: [
        .package(name: "landmarker", path: ".."),
    ],
    targets: [
        .target(
            name: "ModelFuzzer",
            dependencies: [.product(name: "Inference", package: "landmarker")],
            swiftSettings: fuzzerSwiftSettings,
            linkerSettings: fuzzerLinkerSettings),
        .target(
            name: "InputFuzzer",
            dependencies: [
                .product(name: "ImageIO", package: "landmarker"),
                .product(name: "Pipeline", package: "landmarker"),
            ],
            swiftSettings: fuzzerSwiftSettings,
            linkerSettings: fuzzerLinkerSettings),
    ]
)
