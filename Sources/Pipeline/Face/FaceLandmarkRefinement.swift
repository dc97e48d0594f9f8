/// The refined face model's outputs merged into 478 landmarks (MediaPipe
/// `LandmarksRefinementCalculator` as the face mesh graph configures it, docs/PIPELINE.md, "Refined
/// face landmarks"): the 468-point mesh, then the lips, the two eyes and the two irises overwrite
/// or add points.
///
/// In order, each set's points go to their target indices:
/// 1. the mesh (468 × x, y, z) to 0...467, z copied;
/// 2. the lips (80 × x, y), the model's "left eye" and "right eye" (71 × x, y each; they are the
///    eyes on the image's left and right, i.e. the subject's right and left) to the indices below:
///    x and y replaced, z kept from the mesh;
/// 3. each iris (5 × x, y) to 468...472 and 473...477, its z the mean z (summed in `Double`,
///    divided, rounded to `Float`) of 16 points of the eye contour around it.
///
/// The index tables are those of MediaPipe 0.10.21's `face_landmark_front_cpu` graph.
///
/// Thread safety: a namespace of stateless functions of their arguments; safe to call from any
/// number of threads at once.
package enum FaceLandmarkRefinement {
    /// Landmarks after refinement.
    package static let landmarkCount = 478
    /// Points per refinement set, in the model's output order after the mesh: lips, the eye on
    /// the image's left, the eye on the image's right, the iris on the image's left, the one on
    /// its right.
    package static let pointCounts = [80, 71, 71, 5, 5]

    /// Merges the refinement sets into the mesh.
    ///
    /// - Parameters:
    ///   - mesh: the 468 mesh landmarks, normalized to the crop.
    ///   - sets: the five sets of ``pointCounts`` points (x, y normalized to the crop; z unused),
    ///     in that order.
    /// - Returns: 478 landmarks normalized to the crop.
    /// - Throws: ``PipelineInputError/unexpectedLandmarkCount(expected:actual:)`` when a set has
    ///   another size.
    package static func refine(mesh: [RawLandmark], sets: [[RawLandmark]]) throws -> [RawLandmark] {
        guard mesh.count == 468 else {
            throw PipelineInputError.unexpectedLandmarkCount(expected: 468, actual: mesh.count)
        }
        guard sets.count == pointCounts.count else {
            throw PipelineInputError.unexpectedLandmarkCount(expected: pointCounts.count, actual: sets.count)
        }
        for (set, count) in zip(sets, pointCounts) where set.count != count {
            throw PipelineInputError.unexpectedLandmarkCount(expected: count, actual: set.count)
        }
        var refined = mesh + Array(repeating: RawLandmark(x: 0, y: 0, z: 0), count: landmarkCount - mesh.count)
        for (set, targets) in zip(sets[0..<3], [lipsTargets, imageLeftEyeTargets, imageRightEyeTargets]) {
            for (point, target) in zip(set, targets) {
                refined[target].x = point.x
                refined[target].y = point.y
            }
        }
        for (set, (first, depthSources)) in zip(sets[3...], [(468, imageLeftIrisDepthSources), (473, imageRightIrisDepthSources)]) {
            var sum = 0.0
            for source in depthSources {
                sum += Double(refined[source].z)
            }
            let depth = Float(sum / Double(depthSources.count))
            for (offset, point) in set.enumerated() {
                refined[first + offset] = RawLandmark(x: point.x, y: point.y, z: depth)
            }
        }
        return refined
    }

    /// Where each lip point goes.
    static let lipsTargets = [
        61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291, 185, 40, 39, 37, 0,
        267, 269, 270, 409, 78, 95, 88, 178, 87, 14, 317, 402, 318, 324, 308, 191,
        80, 81, 82, 13, 312, 311, 310, 415, 76, 77, 90, 180, 85, 16, 315, 404,
        320, 307, 306, 184, 74, 73, 72, 11, 302, 303, 304, 408, 62, 96, 89, 179,
        86, 15, 316, 403, 319, 325, 292, 183, 42, 41, 38, 12, 268, 271, 272, 407,
    ]

    /// Where each point of the eye on the image's left goes.
    static let imageLeftEyeTargets = [
        33, 7, 163, 144, 145, 153, 154, 155, 133, 246, 161, 160, 159, 158, 157, 173,
        130, 25, 110, 24, 23, 22, 26, 112, 243, 247, 30, 29, 27, 28, 56, 190,
        226, 31, 228, 229, 230, 231, 232, 233, 244, 113, 225, 224, 223, 222, 221, 189,
        35, 124, 46, 53, 52, 65, 143, 111, 117, 118, 119, 120, 121, 128, 245, 156,
        70, 63, 105, 66, 107, 55, 193,
    ]

    /// Where each point of the eye on the image's right goes.
    static let imageRightEyeTargets = [
        263, 249, 390, 373, 374, 380, 381, 382, 362, 466, 388, 387, 386, 385, 384, 398,
        359, 255, 339, 254, 253, 252, 256, 341, 463, 467, 260, 259, 257, 258, 286, 414,
        446, 261, 448, 449, 450, 451, 452, 453, 464, 342, 445, 444, 443, 442, 441, 413,
        265, 353, 276, 283, 282, 295, 372, 340, 346, 347, 348, 349, 350, 357, 465, 383,
        300, 293, 334, 296, 336, 285, 417,
    ]

    /// The eye-contour points whose mean z the iris on the image's left takes.
    static let imageLeftIrisDepthSources = [
        33, 7, 163, 144, 145, 153, 154, 155, 133, 246, 161, 160, 159, 158, 157, 173,
    ]

    /// The eye-contour points whose mean z the iris on the image's right takes.
    static let imageRightIrisDepthSources = [
        263, 249, 390, 373, 374, 380, 381, 382, 362, 466, 388, 387, 386, 385, 384, 398,
    ]
}
