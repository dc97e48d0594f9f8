import MediaPipeTasksVision

/// The CLI's model arguments and defaults, resolved by `ModelFiles`: a path as given, otherwise a
/// bare name looked up in `$LANDMARKER_MODELS`, the install prefix's `share/landmarker/models`,
/// `models/` beside the executable or in the current folder, then the user's cache.
enum ModelLocation {
    static let poseBundle = "pose_landmarker_full.task"
    static let handBundle = "hand_landmarker_full.task"
    static let liteHandBundle = "hand_landmarker_lite.task"
    static let faceBundle = "face_landmarker.task"
    static let refinedFaceBundle = "face_landmarker_refined.task"
    static let holisticBundle = "holistic_landmarker.task"
    static let refinedHolisticBundle = "holistic_landmarker_refined.task"

    /// The file `argument` names.
    /// - Throws: `CommandFailure` listing every folder searched and how to fetch the models.
    static func resolve(_ argument: String) throws(CommandFailure) -> String {
        do {
            return try ModelFiles().locate(argument)
        } catch {
            throw CommandFailure(error.description)
        }
    }
}
