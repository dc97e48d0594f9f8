import ImageIO
import Testing
import TestSupport
@testable import MediaPipeTasksVision

@Suite struct LandmarkDrawingTests {
    private func blankImage(width: Int, height: Int) throws -> RGBImage {
        try RGBImage(width: width, height: height, pixels: [UInt8](repeating: 0, count: width * height * 3))
    }

    private func color(_ image: RGBImage, _ x: Int, _ y: Int) -> DrawingColor? {
        image[x, y].map { DrawingColor(red: $0.red, green: $0.green, blue: $0.blue) }
    }

    /// Distance from pixel centre (x + 0.5, y + 0.5), in pixels, to the segment between two
    /// normalized points scaled to the image.
    private func distance(
        x: Int, y: Int, from a: (Double, Double), to b: (Double, Double), width: Int, height: Int
    ) -> Double {
        let px = Double(x) + 0.5, py = Double(y) + 0.5
        let ax = a.0 * Double(width), ay = a.1 * Double(height)
        let bx = b.0 * Double(width), by = b.1 * Double(height)
        let dx = bx - ax, dy = by - ay
        let lengthSquared = dx * dx + dy * dy
        let t = lengthSquared == 0 ? 0 : min(max(((px - ax) * dx + (py - ay) * dy) / lengthSquared, 0), 1)
        let cx = ax + t * dx - px, cy = ay + t * dy - py
        return (cx * cx + cy * cy).squareRoot()
    }

    /// 33 pose landmarks, all hidden (visibility 0) except those given.
    private func pose(_ shown: [Int: (Float, Float)], visibility: Float = 0.9) -> [NormalizedLandmark] {
        (0..<33).map { index in
            if let point = shown[index] {
                return NormalizedLandmark(x: point.0, y: point.1, z: 0, visibility: visibility, presence: 1)
            }
            return NormalizedLandmark(x: 0.1, y: 0.1, z: 0, visibility: 0, presence: 1)
        }
    }

    @Test func poseConnectionIsDrawnAlongItsSegmentAndNowhereFar() throws {
        let (width, height) = (200, 160)
        var image = try blankImage(width: width, height: height)
        // Left shoulder (11) to left elbow (13): one left-side connection, drawn in the left colour.
        let shoulder = (0.2, 0.3), elbow = (0.8, 0.7)
        LandmarkDrawing.drawPose(
            on: &image, landmarks: pose([11: (Float(shoulder.0), Float(shoulder.1)), 13: (Float(elbow.0), Float(elbow.1))]))
        #expect(image.width == width && image.height == height)

        for step in 1..<10 {
            let t = Double(step) / 10
            let x = Int((shoulder.0 + t * (elbow.0 - shoulder.0)) * Double(width))
            let y = Int((shoulder.1 + t * (elbow.1 - shoulder.1)) * Double(height))
            #expect(color(image, x, y) == LandmarkDrawing.poseLeftColor, "pixel (\(x), \(y)) on the segment")
        }
        // Nothing is drawn more than the landmark circle's reach (thickness + 1, plus a pixel) away.
        let reach = Double(LandmarkDrawing.lineThickness(width: width, height: height)) + 2
        var changed = 0
        for y in 0..<height {
            for x in 0..<width where image[x, y]! != (0, 0, 0) {
                changed += 1
                let d = distance(x: x, y: y, from: shoulder, to: elbow, width: width, height: height)
                #expect(d <= reach, "pixel (\(x), \(y)) is \(d) px from the connection")
            }
        }
        #expect(changed > 100)
    }

    @Test func poseSidesGetDistinctColoursAndCrossingConnectionsTheCentreColour() throws {
        var image = try blankImage(width: 300, height: 300)
        // Shoulders 11 (left) and 12 (right), right elbow 14.
        LandmarkDrawing.drawPose(on: &image, landmarks: pose([11: (0.7, 0.3), 12: (0.3, 0.3), 14: (0.3, 0.8)]))
        #expect(color(image, 150, 89) == LandmarkDrawing.poseCenterColor)  // 11–12 crosses the midline
        #expect(color(image, 89, 165) == LandmarkDrawing.poseRightColor)   // 12–14 is all right side
        #expect(color(image, 210, 89) == LandmarkDrawing.poseLeftColor)    // the left shoulder's circle
        #expect(LandmarkDrawing.poseLeftColor != LandmarkDrawing.poseRightColor)
    }

    @Test func landmarksBelowTheVisibilityThresholdAreNotDrawn() throws {
        let blank = try blankImage(width: 100, height: 100)
        var image = blank
        LandmarkDrawing.drawPose(on: &image, landmarks: pose([11: (0.2, 0.5), 13: (0.8, 0.5)], visibility: 0.49))
        #expect(image == blank)
        LandmarkDrawing.drawPose(on: &image, landmarks: pose([11: (0.2, 0.5), 13: (0.8, 0.5)], visibility: 0.5))
        #expect(color(image, 50, 49) == LandmarkDrawing.poseLeftColor)
    }

    @Test func handFingerIsDrawnInItsColourAndOtherLandmarksStayOff() throws {
        let (width, height) = (120, 120)
        var image = try blankImage(width: width, height: height)
        var landmarks = (0..<21).map { _ in NormalizedLandmark(x: .nan, y: .nan, z: 0) }
        landmarks[5] = NormalizedLandmark(x: 0.5, y: 0.8, z: 0)
        landmarks[6] = NormalizedLandmark(x: 0.5, y: 0.2, z: 0)
        LandmarkDrawing.drawHand(on: &image, landmarks: landmarks)
        for y in stride(from: 35, through: 85, by: 10) {
            #expect(color(image, 59, y) == LandmarkDrawing.handIndexColor, "row \(y)")
        }
        for y in 0..<height {
            for x in 0..<width where image[x, y]! != (0, 0, 0) {
                let d = distance(x: x, y: y, from: (0.5, 0.8), to: (0.5, 0.2), width: width, height: height)
                #expect(d <= 5, "pixel (\(x), \(y)) is \(d) px from the index finger")
            }
        }
    }

    @Test func aTrackColourReplacesTheConnectionColoursOnly() throws {
        let trackColor = LandmarkDrawing.trackColor(for: 3)
        var poseImage = try blankImage(width: 300, height: 300)
        // Left shoulder (11) at (210, 90) to left elbow (13) at (210, 240).
        LandmarkDrawing.drawPose(on: &poseImage, landmarks: pose([11: (0.7, 0.3), 13: (0.7, 0.8)]), connectionColor: trackColor)
        #expect(color(poseImage, 209, 165) == trackColor)
        #expect(color(poseImage, 209, 89) == LandmarkDrawing.poseLeftColor)  // the shoulder's circle

        var handImage = try blankImage(width: 120, height: 120)
        var landmarks = (0..<21).map { _ in NormalizedLandmark(x: .nan, y: .nan, z: 0) }
        landmarks[5] = NormalizedLandmark(x: 0.5, y: 0.8, z: 0)
        landmarks[6] = NormalizedLandmark(x: 0.5, y: 0.2, z: 0)
        LandmarkDrawing.drawHand(on: &handImage, landmarks: landmarks, connectionColor: trackColor)
        #expect(color(handImage, 59, 55) == trackColor)
        #expect(color(handImage, 59, 95) == LandmarkDrawing.handIndexColor)  // landmark 5's circle
    }

    @Test func trackColoursRepeatEveryEightIdsAndCoverNegativeOnes() {
        let colors = LandmarkDrawing.trackColors
        #expect(colors.count == 8 && Set(colors).count == 8)
        #expect((0..<8).map(LandmarkDrawing.trackColor(for:)) == colors)
        #expect(LandmarkDrawing.trackColor(for: 8) == colors[0])
        #expect(LandmarkDrawing.trackColor(for: -1) == colors[7])
        #expect(LandmarkDrawing.trackColor(for: Int.min) == colors[0])
        #expect(LandmarkDrawing.trackColor(for: Int.max) == colors[7])
    }

    @Test func nonFiniteAndHugeCoordinatesNeverTrap() throws {
        let values: [Float] = [
            .nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            1e30, -1e30, 1e6, -1e6, 0.5, 0, 1, -0.001,
        ]
        var random = SeededGenerator.announced("LandmarkDrawingTests.nonFiniteAndHugeCoordinatesNeverTrap")
        for size in [(1, 1), (2, 3), (64, 48)] {
            for _ in 0..<40 {
                var image = try blankImage(width: size.0, height: size.1)
                let landmarks = (0..<33).map { _ in
                    NormalizedLandmark(
                        x: values.randomElement(using: &random)!, y: values.randomElement(using: &random)!,
                        z: 0, visibility: [Float.nan, 0, 1].randomElement(using: &random)!)
                }
                LandmarkDrawing.drawPose(on: &image, landmarks: landmarks)
                LandmarkDrawing.drawHand(on: &image, landmarks: Array(landmarks.prefix(21)), label: "Right 0.50")
                #expect(image.width == size.0 && image.height == size.1)
            }
        }
        // Too few landmarks: connections to missing ones are skipped.
        var image = try blankImage(width: 10, height: 10)
        LandmarkDrawing.drawPose(on: &image, landmarks: [NormalizedLandmark(x: 0.5, y: 0.5, z: 0)])
        LandmarkDrawing.drawHand(on: &image, landmarks: [], label: "Left")
    }

    @Test func hugeFiniteEndpointsAreClippedToTheVisiblePart() throws {
        var image = try blankImage(width: 80, height: 80)
        var landmarks = (0..<21).map { _ in NormalizedLandmark(x: .nan, y: .nan, z: 0) }
        // Wrist (0) to thumb base (1) spans far beyond both sides; the visible part is row 40.
        landmarks[0] = NormalizedLandmark(x: -1e30, y: 0.5, z: 0)
        landmarks[1] = NormalizedLandmark(x: 1e30, y: 0.5, z: 0)
        LandmarkDrawing.drawHand(on: &image, landmarks: landmarks)
        for x in [0, 20, 40, 79] {
            #expect(color(image, x, 40) == LandmarkDrawing.handPalmColor, "column \(x)")
        }
        #expect(image[40, 10]! == (0, 0, 0))
    }

    @Test func handLabelIsDrawnNearTheWrist() throws {
        let (width, height) = (200, 200)
        var landmarks = (0..<21).map { _ in NormalizedLandmark(x: .nan, y: .nan, z: 0) }
        landmarks[0] = NormalizedLandmark(x: 0.5, y: 0.4, z: 0)
        var plain = try blankImage(width: width, height: height)
        LandmarkDrawing.drawHand(on: &plain, landmarks: landmarks)
        var labelled = try blankImage(width: width, height: height)
        LandmarkDrawing.drawHand(on: &labelled, landmarks: landmarks, label: "Left 0.97")

        var white = 0
        var changed = 0
        for y in 0..<height {
            for x in 0..<width where labelled[x, y]! != plain[x, y]! {
                changed += 1
                if labelled[x, y]! == (255, 255, 255) { white += 1 }
                // Within a box of 9 glyphs at 2×, centred below the wrist at (100, 80).
                #expect(abs(x - 100) <= 60 && y > 80 && y < 120, "label pixel (\(x), \(y))")
            }
        }
        #expect(white > 50)
        #expect(changed > white)  // the dark background box too
    }

    @Test func labelAtTheBottomEdgeGoesAboveAndStaysInside() throws {
        var landmarks = (0..<21).map { _ in NormalizedLandmark(x: .nan, y: .nan, z: 0) }
        landmarks[0] = NormalizedLandmark(x: 1, y: 1, z: 0)
        var plain = try blankImage(width: 200, height: 200)
        LandmarkDrawing.drawHand(on: &plain, landmarks: landmarks)
        var labelled = plain
        LandmarkDrawing.drawHand(on: &labelled, landmarks: landmarks, label: "Right 1.00")
        let whiteAbove = (0..<180).reduce(0) { count, y in
            count + (0..<200).filter { labelled[$0, y]! == (255, 255, 255) && plain[$0, y]! != (255, 255, 255) }.count
        }
        #expect(whiteAbove > 50)
    }

    @Test func handLabelFormatsNameAndScore() {
        func label(_ score: Float, _ name: String? = "Left", display: String? = nil) -> String {
            LandmarkDrawing.handLabel(for: ResultCategory(index: 0, score: score, categoryName: name, displayName: display))
        }
        #expect(label(0.974) == "Left 0.97")
        #expect(label(0.05) == "Left 0.05")
        #expect(label(1.2) == "Left 1.00")
        #expect(label(-3) == "Left 0.00")
        #expect(label(.nan) == "Left")
        #expect(label(0.5, nil, display: "Right") == "Right 0.50")
        #expect(label(0.5, nil) == "? 0.50")
    }

    @Test func fontCoversEveryCharacterOfHandLabels() {
        for character in "Left Right 0123456789.:" {
            #expect(BitmapFont.hasGlyph(character), "no glyph for '\(character)'")
        }
    }

    @Test func lineThicknessGrowsWithTheImage() {
        #expect(LandmarkDrawing.lineThickness(width: 100, height: 100) == 2)
        #expect(LandmarkDrawing.lineThickness(width: 1920, height: 1080) == 5)
    }
}
