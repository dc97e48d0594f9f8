import FuzzSupport
import MediaPipeTasksVision

/// Reads a `.task` bundle from memory: the archive's validation, the data of
/// its first members with their CRC-32 check, and the landmarkers' model lookup.
enum TaskBundleDriver {
    private static let maxMembersRead = 16

    static func readBundle(_ bytes: [UInt8]) -> Outcome {
        let bundle: ModelAssetBundle
        do {
            bundle = try ModelAssetBundle(source: .buffer(bytes))
        } catch {
            return FuzzCheck.refused(error)
        }
        var summary: [String] = []
        // Members may overlap (one member's data may hold the next members' headers), so
        // reading every member of a crafted bundle copies and checksums the input once per
        // member; a landmarker reads two. The first few show every path.
        for name in bundle.modelNames.prefix(maxMembersRead) {
            do {
                let model = try bundle.model(named: name)
                FuzzCheck.require(model.count < bytes.count, "member \(name) of \(model.count) bytes in \(bytes.count)")
                summary.append("\(name) (\(model.count) bytes)")
            } catch {
                guard case .invalidBundle(.checksumMismatch) = error else {
                    FuzzCheck.require(false, "listed member \(name) failed with \(error)")
                    return .refused(error)
                }
                summary.append("\(name): \(FuzzCheck.refused(error))")
            }
        }
        for kind in LandmarkerBundleKind.allCases {
            do {
                _ = try LandmarkerModels(kind: kind, source: .buffer(bytes))
                summary.append("models for \(kind)")
            } catch {
                _ = FuzzCheck.refused(error)
            }
        }
        return .parsed(summary.isEmpty ? "no members" : summary.joined(separator: "; "))
    }
}
