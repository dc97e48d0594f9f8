#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// JSON encoding for the CLI's outputs: sorted keys, unescaped slashes, and
/// non-finite floats written as strings rather than failing.
enum JSONOutput {
    static func encode<T: Encodable>(_ value: T, pretty: Bool) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// Where an output file goes when one option serves several inputs.
enum OutputPath {
    /// `option` itself for a single input; `option/<input stem>.png` for several.
    static func resolve(_ option: String, for input: String, multiple: Bool) throws -> String {
        guard multiple else { return option }
        try FileManager.default.createDirectory(atPath: option, withIntermediateDirectories: true)
        let stem = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
        return option + "/" + stem + ".png"
    }
}
