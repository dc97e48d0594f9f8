import Foundation

/// A model file written as the bytes where it differs from a real model, the
/// form in which `Tests/InferenceTests` keeps fuzzer findings and regression
/// inputs (a few kilobytes instead of a multi-megabyte copy):
///
///     {"model": "pose_detection", "length": 2959046,
///      "patches": [{"offset": 2958990, "hex": "07ff"}]}
///
/// The model is the real model's bytes, cut or zero-extended to `length`,
/// with each patch's bytes written at its offset. `model` is null for bytes
/// that edit no real model (the patches then hold the whole file).
struct ModelPatch: Encodable {
    struct Patch: Encodable {
        let offset: Int
        let hex: String
    }

    let model: String?
    let length: Int
    let patches: [Patch]

    /// Bytes equal to the base for fewer than this many positions in a row
    /// are folded into the surrounding patch.
    static let mergeDistance = 16

    init(model bytes: [UInt8], base: ModelSkeleton.Base?) {
        let reference = base?.bytes ?? []
        var patches: [Patch] = []
        var start: Int?
        var lastDifference = -1
        func close(at end: Int) {
            if let from = start {
                patches.append(Patch(offset: from, hex: bytes[from..<end].map { String(format: "%02x", $0) }.joined()))
            }
            start = nil
        }
        for i in bytes.indices {
            let differs = i >= reference.count || bytes[i] != reference[i]
            guard differs else { continue }
            if start != nil, i - lastDifference > Self.mergeDistance { close(at: lastDifference + 1) }
            if start == nil { start = i }
            lastDifference = i
        }
        close(at: lastDifference + 1)
        self.model = base?.name
        self.length = bytes.count
        self.patches = patches
    }

    /// Writes `<model or raw>-<hash of the JSON>.json` into `folder`; returns the name.
    func write(into folder: String) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = try encoder.encode(self)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a, 64-bit
        for byte in json { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let name = "\(model ?? "raw")-\(String(hash, radix: 16)).json"
        try json.write(to: URL(fileURLWithPath: folder).appendingPathComponent(name))
        return name
    }
}
