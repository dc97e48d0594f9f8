/// Turns a detection into a rotated rect, before any ``RectTransformation``
/// (docs/PIPELINE.md, "Detection to rotated rect").
///
/// The rotation always comes from two keypoints (`startKeypoint` → `endKeypoint`, see
/// ``RectRotation/rotation(from:to:targetAngle:imageWidth:imageHeight:)``). The centre and size
/// come from ``Extent``.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct DetectionToRect: Sendable, Hashable {
    /// Where the rect's centre and size come from.
    ///
    /// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
    package enum Extent: Sendable, Hashable {
        /// `AlignmentPointsRectsCalculator`: centre = the start keypoint, side (pixels) =
        /// 2·‖end − start‖, square in pixels. The detection box is not used.
        case alignmentPoints
        /// `DetectionsToRectsCalculator`: the detection box's centre and size.
        case boundingBox
        /// `DetectionsToRectsCalculator` with `conversion_mode: USE_KEYPOINTS`: the box around
        /// every keypoint (centre `(min + max)/2`, size `max − min`, normalized).
        case keypointBox
    }

    package var startKeypoint: Int
    package var endKeypoint: Int
    /// Radians; see ``RectRotation/ninetyDegrees``.
    package var targetAngle: Float
    package var extent: Extent

    package init(startKeypoint: Int, endKeypoint: Int, targetAngle: Float, extent: Extent) {
        self.startKeypoint = startKeypoint
        self.endKeypoint = endKeypoint
        self.targetAngle = targetAngle
        self.extent = extent
    }

    /// Pose detector (docs/PIPELINE.md, "Pose ROI from a detection"): keypoint 0 (mid-hip) → 1
    /// (full-body scale point), 90°, alignment points. Follow with ``RectTransformation/pose``.
    package static let poseDetector = DetectionToRect(
        startKeypoint: 0, endKeypoint: 1, targetAngle: RectRotation.ninetyDegrees, extent: .alignmentPoints)

    /// Palm detector (docs/PIPELINE.md, "Hand ROI from a palm"): the palm box, rotation from
    /// keypoint 0 (wrist) → 2 (middle-finger MCP) with target 90°, as the legacy graph does. (The
    /// Tasks hand detector uses 90 *rad*, a MediaPipe quirk this package does not reproduce.)
    /// Follow with ``RectTransformation/handFromPalm``.
    package static let palmDetector = DetectionToRect(
        startKeypoint: 0, endKeypoint: 2, targetAngle: RectRotation.ninetyDegrees, extent: .boundingBox)

    /// Face detector (docs/PIPELINE.md, "Face ROI from a detection"): the face box, rotation
    /// from keypoint 0 (right eye) → 1 (left eye) with target 0°. Follow with
    /// ``RectTransformation/face``.
    package static let faceDetector = DetectionToRect(
        startKeypoint: 0, endKeypoint: 1, targetAngle: 0, extent: .boundingBox)

    /// Face landmarks to the next frame's ROI (docs/PIPELINE.md, "Face tracking"): the
    /// landmarks' bounding box, rotation from landmark 33 (right eye, outer corner) → 263 (left
    /// eye, outer corner) with target 0°. Follow with ``RectTransformation/face``.
    package static let faceLandmarks = DetectionToRect(
        startKeypoint: 33, endKeypoint: 263, targetAngle: 0, extent: .boundingBox)

    /// Holistic: the pose's face landmarks 0–10 (as ``Detection/init(enclosing:)``) to the region
    /// searched for a face (docs/PIPELINE.md, "Holistic face"): their box, rotation from
    /// landmark 5 (right eye) → 2 (left eye) with target 0°. Follow with
    /// ``RectTransformation/faceRegionFromPose``.
    package static let faceRegionFromPose = DetectionToRect(
        startKeypoint: 5, endKeypoint: 2, targetAngle: 0, extent: .boundingBox)

    /// Holistic: a face detection in that region to the face ROI (docs/PIPELINE.md, "Holistic
    /// face"): the box around its six keypoints, rotation from keypoint 0 (right eye) → 1 (left
    /// eye) with target 0°. Follow with ``RectTransformation/faceFromRegionDetection``.
    package static let faceFromRegionDetection = DetectionToRect(
        startKeypoint: 0, endKeypoint: 1, targetAngle: 0, extent: .keypointBox)

    /// Holistic: the hand-recrop model's two points to the hand ROI (docs/PIPELINE.md,
    /// "Holistic hands"): alignment points from point 0 → 1 with target −90°. Follow with
    /// ``RectTransformation/handFromRecrop``.
    package static let handFromRecrop = DetectionToRect(
        startKeypoint: 0, endKeypoint: 1, targetAngle: radians(fromDegrees: -90), extent: .alignmentPoints)

    /// The rect for `detection`, whose coordinates are normalized to the image.
    ///
    /// - Parameters:
    ///   - detection: a box and keypoints normalized to the image (0...1 across and down).
    ///   - imageWidth: pixels; the rotation and the alignment-point size are computed in pixels.
    ///   - imageHeight: pixels.
    /// - Throws: ``PipelineInputError/tooFewKeypoints(needed:available:)`` if the detection
    ///   lacks the start or end keypoint, ``PipelineInputError/invalidOption(name:reason:)`` for
    ///   a negative keypoint index.
    package func rect(for detection: Detection, imageWidth: Int, imageHeight: Int) throws -> NormalizedRect {
        guard startKeypoint >= 0, endKeypoint >= 0 else {
            throw PipelineInputError.invalidOption(name: "keypoint index", reason: "negative")
        }
        let needed = max(startKeypoint, endKeypoint) + 1
        guard detection.keypoints.count >= needed else {
            throw PipelineInputError.tooFewKeypoints(needed: needed, available: detection.keypoints.count)
        }
        let start = detection.keypoints[startKeypoint]
        let end = detection.keypoints[endKeypoint]
        switch extent {
        case .alignmentPoints:
            return Self.alignmentPointsRect(
                start: start, end: end, targetAngle: targetAngle,
                imageWidth: imageWidth, imageHeight: imageHeight)
        case .boundingBox:
            let box = detection.box
            return NormalizedRect(
                xCenter: box.xmin + box.width / 2, yCenter: box.ymin + box.height / 2,
                width: box.width, height: box.height,
                rotation: RectRotation.rotation(
                    from: start, to: end, targetAngle: targetAngle,
                    imageWidth: imageWidth, imageHeight: imageHeight))
        case .keypointBox:
            var (minX, maxX, minY, maxY) = (Float.greatestFiniteMagnitude, -Float.greatestFiniteMagnitude,
                                            Float.greatestFiniteMagnitude, -Float.greatestFiniteMagnitude)
            for keypoint in detection.keypoints {
                minX = min(minX, keypoint.x)
                minY = min(minY, keypoint.y)
                maxX = max(maxX, keypoint.x)
                maxY = max(maxY, keypoint.y)
            }
            return NormalizedRect(
                xCenter: (minX + maxX) / 2, yCenter: (minY + maxY) / 2, width: maxX - minX, height: maxY - minY,
                rotation: RectRotation.rotation(
                    from: start, to: end, targetAngle: targetAngle,
                    imageWidth: imageWidth, imageHeight: imageHeight))
        }
    }

    /// The alignment-points rect from two points (used for pose detections and, in tracking,
    /// for the two auxiliary pose landmarks): centre = `start`, square in pixels with side
    /// `2·‖end − start‖` (pixels), rotation from `start` → `end`.
    package static func alignmentPointsRect(
        start: RelativePoint, end: RelativePoint, targetAngle: Float, imageWidth: Int, imageHeight: Int
    ) -> NormalizedRect {
        let width = Float(imageWidth)
        let height = Float(imageHeight)
        let xCenter = start.x * width
        let yCenter = start.y * height
        let xScale = end.x * width
        let yScale = end.y * height
        let side = ((xScale - xCenter) * (xScale - xCenter) + (yScale - yCenter) * (yScale - yCenter)).squareRoot() * 2
        return NormalizedRect(
            xCenter: xCenter / width, yCenter: yCenter / height,
            width: side / width, height: side / height,
            rotation: RectRotation.rotation(
                from: start, to: end, targetAngle: targetAngle,
                imageWidth: imageWidth, imageHeight: imageHeight))
    }
}
