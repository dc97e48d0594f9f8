import Testing
import Pipeline

@Suite struct TrackingAssociationTests {
    private func rect(_ x: Float, _ y: Float, size: Float = 0.2, rotation: Float = 0) -> NormalizedRect {
        NormalizedRect(xCenter: x, yCenter: y, width: size, height: size, rotation: rotation)
    }

    @Test func laterRectsWinAcrossAndWithinInputs() {
        let tracked = rect(0.3, 0.3)
        let detected = rect(0.32, 0.3, rotation: 1)  // overlaps `tracked`; rotation is ignored
        let elsewhere = rect(0.8, 0.8)
        #expect(RectAssociation.laterWins([[tracked], [detected, elsewhere]], iouThreshold: 0.5) == [detected, elsewhere])
        #expect(RectAssociation.laterWins([[], [tracked, detected]], iouThreshold: 0.5) == [detected])
        #expect(RectAssociation.laterWins([[tracked, elsewhere], []], iouThreshold: 0.5) == [tracked, elsewhere])
    }

    @Test func trackedRectsWinInHandAssociation() {
        let tracked = rect(0.3, 0.3)
        let detected = rect(0.32, 0.3)
        let elsewhere = rect(0.8, 0.8)
        #expect(RectAssociation.trackedFirst(tracked: [tracked], new: [detected, elsewhere], iouThreshold: 0.5)
                == [tracked, elsewhere])
        // New rects are also tested against new rects already added.
        #expect(RectAssociation.trackedFirst(tracked: [], new: [detected, tracked], iouThreshold: 0.5) == [detected])
    }

    @Test func associationThresholdsAreStrict() {
        let a = rect(0.3, 0.3)
        let b = rect(0.35, 0.3)
        let iou = a.axisAlignedBox.intersectionOverUnion(with: b.axisAlignedBox)  // 0.15/0.25 = 0.6
        #expect(isClose(iou, 0.6, 1e-6))
        #expect(RectAssociation.laterWins([[a, b]], iouThreshold: iou) == [a, b])
        #expect(RectAssociation.laterWins([[a, b]], iouThreshold: iou.nextDown) == [b])
        #expect(RectAssociation.trackedFirst(tracked: [a], new: [b], iouThreshold: iou) == [a, b])
        #expect(RectAssociation.trackedFirst(tracked: [a], new: [b], iouThreshold: iou.nextDown) == [a])
    }

    /// A synthetic hand: 21 points on a 100-px-ish grid around `origin`.
    private func hand(at origin: RelativePoint, jitter: Float = 0) -> [RawLandmark] {
        (0..<21).map { i in
            RawLandmark(x: origin.x + Float(i % 5) * 0.05 + jitter, y: origin.y + Float(i / 5) * 0.05, z: 0)
        }
    }

    @Test func duplicateHandsAreRemovedKeepingTheFirst() throws {
        let a = hand(at: RelativePoint(x: 0.2, y: 0.2))
        let nearCopy = hand(at: RelativePoint(x: 0.2, y: 0.2), jitter: 0.01)
        let other = hand(at: RelativePoint(x: 0.6, y: 0.6))
        #expect(try HandDeduplication.retainedIndices(of: [a, other, nearCopy], imageWidth: 400, imageHeight: 400) == [0, 1])
        #expect(try HandDeduplication.retainedIndices(of: [other, a], imageWidth: 400, imageHeight: 400) == [0, 1])
    }

    @Test func duplicatesNeedTenCloseLandmarks() throws {
        // Baseline = max(|L0L5|, |L5L17|, |L17L0|): L0 (0,0), L5 (0,1), L17 (2,3) grid steps of
        // 0.05 → |L17L0| = √13·0.05 = 0.18 of 400 px = 72 px; threshold 0.2·72 = 14.4 px.
        let a = hand(at: RelativePoint(x: 0.2, y: 0.2))
        // Move landmarks ≥ `moved` by 20 px (0.05): only the first `moved` stay close.
        func partlyMoved(_ moved: Int) -> [RawLandmark] {
            a.enumerated().map { i, landmark in
                var copy = landmark
                if i >= moved { copy.x += 0.05 }
                return copy
            }
        }
        #expect(try HandDeduplication.retainedIndices(of: [a, partlyMoved(10)], imageWidth: 400, imageHeight: 400) == [0])
        #expect(try HandDeduplication.retainedIndices(of: [a, partlyMoved(9)], imageWidth: 400, imageHeight: 400) == [0, 1])
        #expect(throws: PipelineInputError.unexpectedLandmarkCount(expected: 21, actual: 20)) {
            try HandDeduplication.retainedIndices(of: [Array(a.prefix(20))], imageWidth: 400, imageHeight: 400)
        }
    }

    @Test func handednessConventions() {
        #expect(HandednessConvention.tasks.decode(score: 0.9) == HandednessCategory(index: 0, score: 0.9, label: "Right"))
        #expect(HandednessConvention.legacy.decode(score: 0.9) == HandednessCategory(index: 0, score: 0.9, label: "Left"))
        let low = HandednessConvention.tasks.decode(score: 0.25)
        #expect(low == HandednessCategory(index: 1, score: 0.75, label: "Left"))
        #expect(HandednessConvention.tasks.decode(score: 0.5).index == 0)  // tie: class 0
    }

    /// The fixtures' own labels follow each flavour's index → label table.
    @Test func handednessConventionsMatchTheFixtures() throws {
        var checked = 0
        for name in try MathFixtures.jsonNames(in: "legacy/hands_full") {
            for hand in try MathFixtures.json(LegacyHandsFixture.self, "legacy/hands_full/\(name).json").hands {
                for category in hand.handedness {
                    let labels = HandednessConvention.legacy.labels
                    #expect(category.label == (category.index == 0 ? labels.index0 : labels.index1), "\(name)")
                    checked += 1
                }
            }
        }
        for name in try MathFixtures.jsonNames(in: "tasks/hands_full_n2") {
            for hand in try MathFixtures.json(TasksHandsFixture.self, "tasks/hands_full_n2/\(name).json").hands {
                for category in hand.handedness {
                    let labels = HandednessConvention.tasks.labels
                    #expect(category.categoryName == (category.index == 0 ? labels.index0 : labels.index1), "\(name)")
                    checked += 1
                }
            }
        }
        #expect(checked >= 16)
    }

    /// Legacy hand landmarks → next-frame ROI versus the graph's own, on every legacy hand
    /// fixture (images, full and lite; the video clip, static and tracking).
    @Test func handRectsFromLandmarksMatchLegacy() throws {
        var compared = 0
        var worst: Float = 0
        let folders = ["legacy/hands_full", "legacy/hands_lite",
                       "legacy/video/t1_sweep/hands_full_static", "legacy/video/t1_sweep/hands_full_tracking"]
        for folder in folders {
            for name in try MathFixtures.jsonNames(in: folder) {
                let fixture = try MathFixtures.json(LegacyHandsFixture.self, "\(folder)/\(name).json")
                #expect(fixture.hands.count == fixture.intermediate.handRectsFromLandmarks.count)
                for (hand, expected) in zip(fixture.hands, fixture.intermediate.handRectsFromLandmarks) {
                    let roi = try HandTrackingRect.nextFrameROI(
                        landmarks: hand.landmarks.map(\.landmark),
                        imageWidth: fixture.image.width, imageHeight: fixture.image.height)
                    let difference = maxDifference(roi, expected)
                    worst = max(worst, difference)
                    #expect(difference <= 1e-5, "\(folder)/\(name): \(roi) vs \(expected)")
                    compared += 1
                }
            }
        }
        print("hand landmarks → ROI: \(compared) rects, max difference \(worst)")
        #expect(compared >= 100)
    }
}
