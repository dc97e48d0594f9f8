import ImageIO
import Kernels
import LandmarkTestSupport
@testable import Pipeline
import TestSupport
import Testing

/// The holistic graph against MediaPipe's legacy Holistic (`holistic_landmark_cpu`,
/// `Tests/Fixtures/legacy/holistic_*`): every fixture image in image mode with the plain and the
/// refined face model, and the clip as a stream (plain and refined) and frame by frame (plain).
///
/// The same parts are found on the same frames. In the native build (fused multiply-adds) the
/// body, the face and the hands are MediaPipe's to the last bit, landmarks and ROIs (the pose's,
/// the face region and ROIs, each hand's region, re-crop and tracking ROI), smoothing and the
/// static mode's quirks included, and so is every segmentation mask (the hash of its float32
/// values; else its mean to 1e-4 and its 8-bit PNG within a step). The hands need
/// `hand_recrop.tflite` run as MediaPipe's XNNPACK runs it (`PointwiseDepthwiseRounding.separate`,
/// docs/PIPELINE.md, "Holistic exactness").
@Suite struct HolisticGraphGoldenTests {
    static let images = [
        "bus", "zidane", "astronaut", "grace_hopper", "camera", "coffee", "chelsea", "t1",
        "bus_man", "bus_man_rot90cw", "t1_cards_left", "t1_cards_right", "t1_chip",
        "t1_chip_mirror",
    ]
    static let clipFrames = 50
    /// The legacy solutions' clock: frame k at (k + 1) · 33333 µs.
    static let frameStepMicroseconds: Int64 = 33_333

    @Test(arguments: images, [false, true])
    func imageModeMatchesLegacyGolden(name: String, refined: Bool) throws {
        let graph = try LandmarkGraphs.holistic(streamMode: false, refined: refined, masks: true)
        let image = try Fixtures.uprightImage(contentsOfFile: Fixtures.path("images/\(name).png"))
        let people = try graph.process(image, timestampMicroseconds: Self.frameStepMicroseconds)
        let reference = try FixtureGoldens.holistic("legacy/holistic_\(refined ? "refined" : "plain")/\(name).json")
        Self.expectMatches(people.first, graph.intermediate.first ?? HolisticGraph.IntermediateROIs(), reference, name)
    }

    @Test(arguments: [("plain", "tracking"), ("refined", "tracking"), ("plain", "static")])
    func clipMatchesLegacyGolden(model: String, mode: String) throws {
        let graph = try LandmarkGraphs.holistic(streamMode: mode == "tracking", refined: model == "refined", masks: true)
        for frame in 0..<Self.clipFrames {
            let file = String(format: "frame_%04d", frame)
            let image = try Fixtures.uprightImage(contentsOfFile: Fixtures.path("video/t1_sweep/\(file).png"))
            let people = try graph.process(image, timestampMicroseconds: Int64(frame + 1) * Self.frameStepMicroseconds)
            let reference = try FixtureGoldens.holistic("legacy/video/t1_sweep/holistic_\(model)_\(mode)/\(file).json")
            Self.expectMatches(people.first, graph.intermediate.first ?? HolisticGraph.IntermediateROIs(), reference, "\(model) \(mode) \(file)")
        }
    }

    static func expectMatches(
        _ person: HolisticGraph.Person?, _ intermediate: HolisticGraph.IntermediateROIs,
        _ reference: ReferenceHolisticFrame, _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        expectROI(intermediate.faceRegion, reference.faceRegion, "\(label): face region", sourceLocation)
        expectROI(intermediate.faceRecrop, reference.faceROIFromDetection, "\(label): face ROI from detection", sourceLocation)
        for (side, theirs) in [(HolisticHandRegion.Side.left, reference.leftHand), (.right, reference.rightHand)] {
            expectROI(intermediate.handRegions[side], theirs.regionFromPose, "\(label): \(side) hand region", sourceLocation)
            expectROI(intermediate.handRecrops[side], theirs.roiFromRecrop, "\(label): \(side) hand re-crop", sourceLocation)
        }
        #expect((person != nil) == (reference.pose != nil), "\(label): pose found", sourceLocation: sourceLocation)
        guard let person, let pose = reference.pose else { return }
        let size = (reference.width, reference.height)
        var distances = PartDistances(), handDistances = PartDistances()
        expectROI(person.pose.roi, reference.poseROI, "\(label): pose ROI", sourceLocation)
        expectROI(person.pose.trackingROI, reference.poseROIFromLandmarks, "\(label): next pose ROI", sourceLocation)
        distances.add(person.pose.landmarks.map { SIMD3(Double($0.x), Double($0.y), Double($0.z)) }, pose.landmarks, size)
        expectMask(person.pose.mask, reference.mask, label, sourceLocation)

        #expect((person.face != nil) == (reference.face != nil), "\(label): face found", sourceLocation: sourceLocation)
        if let face = person.face, let theirs = reference.face {
            expectROI(face.roi, reference.faceTrackingROI, "\(label): face ROI", sourceLocation)
            #expect(face.landmarks.count == theirs.count, "\(label): face landmark count", sourceLocation: sourceLocation)
            distances.add(face.landmarks.map { SIMD3(Double($0.x), Double($0.y), Double($0.z)) }, theirs, size)
        }
        for (side, ours, theirs) in [("left", person.leftHand, reference.leftHand), ("right", person.rightHand, reference.rightHand)] {
            #expect((ours != nil) == (theirs.landmarks != nil), "\(label): \(side) hand found", sourceLocation: sourceLocation)
            if let ours, let landmarks = theirs.landmarks {
                expectROI(ours.roi, theirs.trackingROI, "\(label): \(side) hand ROI", sourceLocation)
                handDistances.add(
                    ours.landmarks.landmarks.map { SIMD3(Double($0.x), Double($0.y), Double($0.z)) }, landmarks, size)
            }
        }
        distances.expect(label, sourceLocation)
        handDistances.expect("\(label) hands", sourceLocation)
    }

    /// The segmentation mask: in the native build MediaPipe's float32 values to the last bit
    /// (their hash); else the same mean to 1e-4 and the PNG's pixels within one step.
    static func expectMask(_ ours: [Float]?, _ theirs: ReferenceMask?, _ label: String, _ sourceLocation: SourceLocation) {
        guard let ours, let theirs else {
            #expect(ours == nil && theirs == nil, "\(label): mask ours \(ours != nil), MediaPipe's \(theirs != nil)",
                    sourceLocation: sourceLocation)
            return
        }
        guard ours.count == theirs.width * theirs.height else {
            Issue.record("\(label): mask of \(ours.count) values, MediaPipe's \(theirs.width) × \(theirs.height)",
                         sourceLocation: sourceLocation)
            return
        }
        let mean = ours.reduce(0.0) { $0 + Double($1) } / Double(ours.count)
        let hash = FNV1a.hash(ours)
        print(String(format: "%@: mask mean %.9f (MediaPipe's %.9f), hash %@ (MediaPipe's %@)",
                     label, mean, theirs.mean, hash, theirs.float32Hash))
        #expect(abs(mean - theirs.mean) <= 1e-4, "\(label): mask mean \(mean) vs \(theirs.mean)", sourceLocation: sourceLocation)
        if let file = theirs.pngFile {
            do {
                // Decoded as RGB: the grey value three times.
                let png = try PNGCodec.decode(contentsOfFile: Fixtures.path(file))
                let steps = ours.indices.map { index in
                    abs(Int((min(max(ours[index], 0), 1) * 255).rounded()) - Int(png.pixels[3 * index]))
                }
                #expect(steps.max()! <= 1, "\(label): mask pixels up to \(steps.max()!) steps from \(file)",
                        sourceLocation: sourceLocation)
            } catch {
                Issue.record("\(label): \(file): \(error)", sourceLocation: sourceLocation)
            }
        }
        if KernelInstructionSet.fusesMultiplyAdd {
            #expect(hash == theirs.float32Hash, "\(label): mask not MediaPipe's to the last bit", sourceLocation: sourceLocation)
        }
    }

    static func expectROI(
        _ ours: NormalizedRect?, _ theirs: [Double]?, _ label: String, _ sourceLocation: SourceLocation
    ) {
        guard let ours, let theirs else {
            #expect(ours == nil && theirs == nil, "\(label): ours \(String(describing: ours)), MediaPipe's \(String(describing: theirs))",
                    sourceLocation: sourceLocation)
            return
        }
        // MediaPipe's float32 values, read back from their shortest decimals.
        let difference = zip([ours.xCenter, ours.yCenter, ours.width, ours.height, ours.rotation], theirs)
            .map { abs(Double($0) - Double(Float($1))) }.max()!
        #expect(difference <= (KernelInstructionSet.fusesMultiplyAdd ? 0 : 0.01),
                "\(label) \(ours) vs MediaPipe's \(theirs)", sourceLocation: sourceLocation)
    }

    /// Landmark distances in pixels, over every part of a frame.
    struct PartDistances {
        var maximum = 0.0
        var sum = 0.0
        var count = 0
        /// Landmarks whose x, y and z are MediaPipe's to the last bit.
        var identical = 0

        mutating func add(_ ours: [SIMD3<Double>], _ theirs: [SIMD3<Double>], _ size: (Int, Int)) {
            for (our, their) in zip(ours, theirs) {
                let dx = (our.x - their.x) * Double(size.0)
                let dy = (our.y - their.y) * Double(size.1)
                let distance = (dx * dx + dy * dy).squareRoot()
                maximum = max(maximum, distance)
                sum += distance
                count += 1
                if Float(our.x) == Float(their.x) && Float(our.y) == Float(their.y) && Float(our.z) == Float(their.z) {
                    identical += 1
                }
            }
        }

        /// In the native build (fused multiply-adds): every landmark MediaPipe's to the last bit;
        /// mean 0.5 px in the portable build.
        func expect(_ label: String, _ sourceLocation: SourceLocation) {
            guard count > 0 else { return }
            let mean = sum / Double(count)
            print(String(format: "%@: %d landmarks (%d bit-identical), mean %.6f px, max %.6f px",
                         label, count, identical, mean, maximum))
            #expect(mean <= 0.5, "\(label): mean landmark distance \(mean) px", sourceLocation: sourceLocation)
            guard KernelInstructionSet.fusesMultiplyAdd else { return }
            #expect(identical == count, "\(label): \(count - identical) landmarks not bit-identical", sourceLocation: sourceLocation)
        }
    }
}
