import ImageIO

/// Draws pose and hand skeletons and face meshes onto images, in the spirit of MediaPipe's drawing utilities.
///
/// Landmarks are normalized (`x × width`, `y × height` give pixels). Lines are
/// ``lineThickness(width:height:)`` pixels thick and landmarks are filled circles with a
/// white rim; everything is clipped to the image. Landmarks with non-finite or absurd
/// coordinates, and connections that name a missing landmark, are skipped: no input traps.
///
/// Thread safety: a namespace of stateless functions of their arguments; safe to call from any
/// number of threads at once.
package enum LandmarkDrawing {
    /// Pose: landmarks and connections on the subject's left side (odd indices from 11, and
    /// the left eye, ear and mouth corner).
    package static let poseLeftColor = DrawingColor(red: 255, green: 138, blue: 0)
    /// Pose: landmarks and connections on the subject's right side.
    package static let poseRightColor = DrawingColor(red: 0, green: 217, blue: 231)
    /// Pose: the nose and connections that cross the body's midline.
    package static let poseCenterColor = DrawingColor(red: 224, green: 224, blue: 224)
    /// Hands: the palm (wrist and the palm edges), then thumb, index, middle, ring and pinky.
    package static let handPalmColor = DrawingColor(red: 255, green: 48, blue: 48)
    package static let handThumbColor = DrawingColor(red: 255, green: 220, blue: 170)
    package static let handIndexColor = DrawingColor(red: 150, green: 70, blue: 200)
    package static let handMiddleColor = DrawingColor(red: 255, green: 204, blue: 0)
    package static let handRingColor = DrawingColor(red: 48, green: 220, blue: 48)
    package static let handPinkyColor = DrawingColor(red: 30, green: 110, blue: 230)
    /// Faces: the mesh points, the contours (eyes, eyebrows, lips, oval) and the irises.
    package static let faceMeshColor = DrawingColor(red: 200, green: 200, blue: 200)
    package static let faceContourColor = DrawingColor(red: 48, green: 220, blue: 48)
    package static let faceIrisColor = DrawingColor(red: 255, green: 48, blue: 48)
    /// Tracked poses and hands (video): the connections of track id k are drawn in
    /// `trackColors[k mod 8]` (``trackColor(for:)``).
    package static let trackColors = [
        DrawingColor(red: 230, green: 25, blue: 75), DrawingColor(red: 60, green: 180, blue: 75),
        DrawingColor(red: 255, green: 225, blue: 25), DrawingColor(red: 0, green: 130, blue: 200),
        DrawingColor(red: 245, green: 130, blue: 48), DrawingColor(red: 145, green: 30, blue: 180),
        DrawingColor(red: 70, green: 240, blue: 240), DrawingColor(red: 240, green: 50, blue: 230),
    ]

    private static let rimColor = DrawingColor(red: 255, green: 255, blue: 255)
    private static let labelTextColor = DrawingColor(red: 255, green: 255, blue: 255)
    private static let labelBackgroundColor = DrawingColor(red: 24, green: 24, blue: 24)

    /// The colour of track id `trackId`: `trackColors[trackId mod 8]` (the non-negative
    /// remainder, so any `Int` has one).
    package static func trackColor(for trackId: Int) -> DrawingColor {
        let count = trackColors.count
        return trackColors[(trackId % count + count) % count]
    }

    /// The connection line thickness in pixels for an image: `max(2, min(width, height) / 200)`.
    package static func lineThickness(width: Int, height: Int) -> Int {
        max(2, min(width, height) / 200)
    }

    /// Draws the 33-landmark pose skeleton (``PoseLandmarksConnections/poseLandmarks``).
    ///
    /// A landmark is drawn, and a connection only if both its ends are, when its `visibility`
    /// and `presence` are each nil or at least `minimumVisibility`.
    /// - Parameters:
    ///   - image: the picture to draw on, in place.
    ///   - landmarks: normalized landmarks in pose-model order (33; fewer only draws the
    ///     connections whose ends exist).
    ///   - minimumVisibility: the visibility and presence, in [0, 1], a landmark needs to be drawn.
    ///   - connectionColor: one colour for every connection (a track's, ``trackColor(for:)``);
    ///     nil: the side colours. The landmarks keep their side colours either way.
    package static func drawPose(
        on image: inout RGBImage, landmarks: [NormalizedLandmark], minimumVisibility: Float = 0.5,
        connectionColor: DrawingColor? = nil
    ) {
        var canvas = Canvas(image)
        let geometry = Geometry(canvas: canvas)
        let points = landmarks.map { landmark -> (x: Double, y: Double)? in
            guard isShown(landmark.visibility, minimumVisibility), isShown(landmark.presence, minimumVisibility) else {
                return nil
            }
            return geometry.pixel(landmark)
        }
        for connection in PoseLandmarksConnections.poseLandmarks {
            let startSide = poseSide(connection.start)
            let sideColor = startSide == poseSide(connection.end) ? poseColor(startSide) : poseCenterColor
            let color = connectionColor ?? sideColor
            geometry.stroke(connection, points: points, color: color, on: &canvas)
        }
        for (index, point) in points.enumerated() {
            geometry.mark(point, color: poseColor(poseSide(index)), on: &canvas)
        }
        image = canvas.image()
    }

    /// Draws the 21-landmark hand skeleton (``HandLandmarksConnections/handConnections``) with
    /// one colour per finger, and `label` (e.g. from ``handLabel(for:)``) near the wrist in
    /// white on a dark box, 2× scaled (3× when the image's smaller side is at least 480 pixels).
    /// - Parameters:
    ///   - image: the picture to draw on, in place.
    ///   - landmarks: normalized landmarks in hand-model order (21).
    ///   - label: the text drawn near the wrist, or nil for none.
    ///   - connectionColor: one colour for every connection (a track's, ``trackColor(for:)``);
    ///     nil: one colour per finger. The landmarks keep their finger colours either way.
    package static func drawHand(
        on image: inout RGBImage, landmarks: [NormalizedLandmark], label: String? = nil,
        connectionColor: DrawingColor? = nil
    ) {
        var canvas = Canvas(image)
        let geometry = Geometry(canvas: canvas)
        let points = landmarks.map { geometry.pixel($0) }
        let groups: [([Connection], DrawingColor)] = [
            (HandLandmarksConnections.handPalmConnections, handPalmColor),
            (HandLandmarksConnections.handThumbConnections, handThumbColor),
            (HandLandmarksConnections.handIndexFingerConnections, handIndexColor),
            (HandLandmarksConnections.handMiddleFingerConnections, handMiddleColor),
            (HandLandmarksConnections.handRingFingerConnections, handRingColor),
            (HandLandmarksConnections.handPinkyConnections, handPinkyColor),
        ]
        for (connections, fingerColor) in groups {
            for connection in connections {
                geometry.stroke(connection, points: points, color: connectionColor ?? fingerColor, on: &canvas)
            }
        }
        for (index, point) in points.enumerated() {
            geometry.mark(point, color: handColor(index), on: &canvas)
        }
        if let label, !label.isEmpty, let wrist = points.first ?? nil {
            geometry.drawLabel(label, near: wrist, on: &canvas)
        }
        image = canvas.image()
    }

    /// Draws a face: every landmark as a dot (three quarters of the line thickness), the contours
    /// (``FaceLandmarksConnections/contoursConnections``) and, with 478 landmarks, the irises.
    /// - Parameters:
    ///   - image: the picture to draw on, in place.
    ///   - landmarks: normalized landmarks in face-mesh order (468 or 478).
    ///   - connectionColor: one colour for the contours (a track's, ``trackColor(for:)``); nil:
    ///     ``faceContourColor``.
    package static func drawFace(
        on image: inout RGBImage, landmarks: [NormalizedLandmark], connectionColor: DrawingColor? = nil
    ) {
        var canvas = Canvas(image)
        let geometry = Geometry(canvas: canvas)
        let points = landmarks.map { geometry.pixel($0) }
        for point in points {
            guard let point else { continue }
            canvas.fillDisc(centerX: point.x, centerY: point.y, radius: geometry.lineRadius * 0.75, color: faceMeshColor)
        }
        for connection in FaceLandmarksConnections.contoursConnections {
            geometry.stroke(connection, points: points, color: connectionColor ?? faceContourColor, on: &canvas)
        }
        for connection in FaceLandmarksConnections.irisConnections {
            geometry.stroke(connection, points: points, color: faceIrisColor, on: &canvas)
        }
        image = canvas.image()
    }

    /// "Left 0.97": the category's name (or display name, or "?") and its score to two
    /// decimals (clamped to [0, 1]; omitted when not finite).
    package static func handLabel(for handedness: ResultCategory) -> String {
        let name = handedness.categoryName ?? handedness.displayName ?? "?"
        guard handedness.score.isFinite else { return name }
        let hundredths = Int((min(max(handedness.score, 0), 1) * 100).rounded())
        let fraction = hundredths % 100
        return "\(name) \(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    // MARK: - Colours by landmark

    private enum Side { case left, right, center }

    /// Pose landmarks 1–3, 7, 9 and odd ones from 11 are the subject's left; 4–6, 8, 10 and
    /// even ones from 12 the right; 0 (nose) is central.
    private static func poseSide(_ index: Int) -> Side {
        switch index {
        case 0: return .center
        case 1, 2, 3, 7, 9: return .left
        case 4, 5, 6, 8, 10: return .right
        default: return index % 2 == 1 ? .left : .right
        }
    }

    private static func poseColor(_ side: Side) -> DrawingColor {
        switch side {
        case .left: return poseLeftColor
        case .right: return poseRightColor
        case .center: return poseCenterColor
        }
    }

    /// Wrist 0 is palm; 1–4 thumb, 5–8 index, 9–12 middle, 13–16 ring, 17–20 pinky.
    private static func handColor(_ index: Int) -> DrawingColor {
        switch index {
        case 1...4: return handThumbColor
        case 5...8: return handIndexColor
        case 9...12: return handMiddleColor
        case 13...16: return handRingColor
        case 17...20: return handPinkyColor
        default: return handPalmColor
        }
    }

    /// Nil counts as shown; NaN counts as hidden.
    private static func isShown(_ score: Float?, _ minimum: Float) -> Bool {
        guard let score else { return true }
        return score >= minimum
    }

    // MARK: - Sizes and primitives for one image

    private struct Geometry {
        let width: Int
        let height: Int
        let lineRadius: Double
        let markRadius: Double
        let textScale: Int

        init(canvas: Canvas) {
            width = canvas.width
            height = canvas.height
            let thickness = LandmarkDrawing.lineThickness(width: width, height: height)
            lineRadius = Double(thickness) / 2
            markRadius = Double(thickness) + 1
            textScale = min(width, height) >= 480 ? 3 : 2
        }

        /// The landmark in pixel-index space (pixel i's centre at i), or `nil` when not finite.
        func pixel(_ landmark: NormalizedLandmark) -> (x: Double, y: Double)? {
            let x = Double(landmark.x) * Double(width) - 0.5
            let y = Double(landmark.y) * Double(height) - 0.5
            guard x.isFinite, y.isFinite else { return nil }
            return (x, y)
        }

        func stroke(
            _ connection: Connection, points: [(x: Double, y: Double)?], color: DrawingColor, on canvas: inout Canvas
        ) {
            guard points.indices.contains(connection.start), points.indices.contains(connection.end),
                  let start = points[connection.start], let end = points[connection.end] else { return }
            canvas.strokeSegment(from: start, to: end, radius: lineRadius, color: color)
        }

        func mark(_ point: (x: Double, y: Double)?, color: DrawingColor, on canvas: inout Canvas) {
            guard let point else { return }
            canvas.fillDisc(centerX: point.x, centerY: point.y, radius: markRadius, color: LandmarkDrawing.rimColor)
            canvas.fillDisc(centerX: point.x, centerY: point.y, radius: markRadius - 1, color: color)
        }

        /// Draws `text` on a dark box just below `anchor` (above it when there is no room
        /// below), shifted to stay inside the image where it fits.
        func drawLabel(_ text: String, near anchor: (x: Double, y: Double), on canvas: inout Canvas) {
            let padding = textScale
            let textSize = BitmapFont.size(of: text, scale: textScale)
            let boxWidth = textSize.width + 2 * padding
            let boxHeight = textSize.height + 2 * padding
            let gap = Int(markRadius.rounded(.up)) + padding
            // Clamp the anchor to the image in floating point before converting to Int.
            let anchorX = Int(min(max(anchor.x, 0), Double(width - 1)).rounded())
            let anchorY = Int(min(max(anchor.y, 0), Double(height - 1)).rounded())
            var top = anchorY + gap
            if top + boxHeight > height {
                top = anchorY - gap - boxHeight
            }
            top = max(0, min(top, height - boxHeight))
            let left = max(0, min(anchorX - boxWidth / 2, width - boxWidth))
            canvas.fillRectangle(
                x0: left, y0: top, x1: left + boxWidth, y1: top + boxHeight, color: LandmarkDrawing.labelBackgroundColor)
            BitmapFont.draw(
                text, x: left + padding, y: top + padding, scale: textScale,
                color: LandmarkDrawing.labelTextColor, on: &canvas)
        }
    }
}
