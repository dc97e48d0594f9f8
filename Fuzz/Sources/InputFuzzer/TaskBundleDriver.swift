import Pipeline

/// Reads a `.task` bundle from memory: the archive's validation, every
/// member's data with its CRC-32 check, and the landmarkers' model lookup.
enum TaskBundleDriver {
    static func readBundle(_ bytes: [UInt8]) -> Outcome {
        let bundle: ModelAssetBundle
        do {
            bundle = try ModelAssetBundle(source: .buffer(bytes))
        } catch {
            return FuzzCheck.refused(error)
        }
        var summary: [String] = []
        for name in bundle.modelNames {
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
