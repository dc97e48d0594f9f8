// swift-tools-version:5.3
// A libFuzzer target for model bytes: load, verify and prepare.
// Kept in its own package because libFuzzer needs plain targets built with
// `-sanitize=fuzzer,address -parse-as-library` (see the README's "Fuzzing").
import PackageDescription

let package = Package(
    name: "ModelFuzzer",
    dependencies: [
        .package(name: "landmarker", path: ".."),
    ],
    targets: [
        .target(
            name: "ModelFuzzer",
            dependencies: [.product(name: "Inference", package: "landmarker")],
            swiftSettings: [.unsafeFlags(["-sanitize=fuzzer,address", "-parse-as-library"])],
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]),
    ]
)
