#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Resolves a model argument: an existing path as given, otherwise a bare
/// name (with or without `.tflite`) looked up in the `models/` folder.
enum ModelLocation {
    static func resolve(_ argument: String) -> String {
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: argument) { return argument }
        let name = argument.hasSuffix(".tflite") ? argument : argument + ".tflite"
        let candidate = "models/" + name
        return fileManager.fileExists(atPath: candidate) ? candidate : argument
    }
}
