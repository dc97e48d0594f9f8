#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a model asset bundle could not be loaded.
///
/// Thread safety: a `Sendable` value; it can be thrown across threads and queues.
public enum ModelAssetError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The bundle file could not be read.
    case unreadableFile(path: String, reason: String)
    /// The bundle is not a valid stored-entry zip archive.
    case invalidBundle(ZipArchiveError)
    /// The bundle lacks a model the task needs.
    case missingModel(name: String, available: [String])

    public var description: String {
        switch self {
        case .unreadableFile(let path, let reason):
            return "Cannot read the model asset bundle \"\(path)\": \(reason)"
        case .invalidBundle(let error):
            return "Invalid model asset bundle: \(error)"
        case .missingModel(let name, let available):
            return "The model asset bundle has no \"\(name)\"; it has: "
                + (available.isEmpty ? "nothing" : available.joined(separator: ", ")) + "."
        }
    }

    public var errorDescription: String? { description }
}
