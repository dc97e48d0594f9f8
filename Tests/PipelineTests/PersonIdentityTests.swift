import Foundation
import Testing

@testable import Pipeline

/// Person ids from landmarks, motion and body proportions (docs/PIPELINE.md, "Track ids"), on
/// synthetic sequences: 25 frames a second, torsos 100 px long.
@Suite struct PersonIdentityTests {
    static let frameMicroseconds: Int64 = 40_000
    static let tall = BodySignature(ratios: [0.8, 0.6, 0.6, 0.5, 0.9, 0.9], counts: [1, 1, 1, 1, 1, 1])
    static let broad = BodySignature(ratios: [1.3, 1.1, 0.45, 0.35, 0.6, 0.6], counts: [1, 1, 1, 1, 1, 1])

    static func pose(_ x: Double, track: Int?, _ signature: BodySignature = tall) -> PersonIdentities.Observation {
        PersonIdentities.Observation(trackId: track, centre: SIMD2(x, 200), torsoLength: 100, signature: signature)
    }

    static func time(_ frame: Int) -> Int64 { Int64(frame) * frameMicroseconds }

    /// Two people walk towards each other at 10 px a frame, pass, and walk on. Their ROI tracks
    /// swap while they overlap (as a track slides from one person to the other), then the one
    /// behind is lost for four frames and comes back on a new track: ids follow the people.
    @Test func peopleWhoCrossKeepTheirIds() {
        var identities = PersonIdentities()
        var idOf: [String: Int] = [:]
        for frame in 0..<40 {
            let left = 100 + 10 * Double(frame), right = 500 - 10 * Double(frame)
            var poses: [(String, PersonIdentities.Observation)] = []
            switch frame {
            case ..<18: poses = [("tall", Self.pose(left, track: 0)), ("broad", Self.pose(right, track: 1, Self.broad))]
            case 18..<20: poses = [("tall", Self.pose(left, track: 1)), ("broad", Self.pose(right, track: 0, Self.broad))]
            case 20..<24: poses = [("broad", Self.pose(right, track: 0, Self.broad))]
            default: poses = [("broad", Self.pose(right, track: 0, Self.broad)), ("tall", Self.pose(left, track: 2))]
            }
            let ids = identities.assign(poses.map(\.1), timestampMicroseconds: Self.time(frame))
            for ((name, _), id) in zip(poses, ids) {
                #expect(idOf[name, default: id] == id, "frame \(frame): \(name) got \(id), had \(idOf[name]!)")
                idOf[name] = id
            }
        }
        #expect(idOf == ["tall": 0, "broad": 1])
    }

    /// One person hidden for five frames while the other stands still comes back with their id,
    /// on a new ROI track, in either order.
    @Test func aPersonHiddenForAFewFramesKeepsTheirId() {
        var identities = PersonIdentities()
        for frame in 0..<20 {
            let hidden = (8..<13).contains(frame)
            let still = Self.pose(450, track: 1, Self.broad)
            let returning = Self.pose(150, track: frame < 8 ? 0 : 2)
            let poses = frame < 8 ? [returning, still] : hidden ? [still] : [still, returning]
            let ids = identities.assign(poses, timestampMicroseconds: Self.time(frame))
            #expect(ids == (frame < 8 ? [0, 1] : hidden ? [1] : [1, 0]), "frame \(frame)")
        }
    }

    /// Two people standing close enough for either to be where the other was expected, whose ROI
    /// tracks swap: their proportions tell them apart.
    @Test func proportionsTellApartPeopleInTheSamePlace() {
        var identities = PersonIdentities()
        #expect(identities.assign([Self.pose(300, track: 0), Self.pose(330, track: 1, Self.broad)], timestampMicroseconds: 0) == [0, 1])
        for frame in 1..<6 {
            let ids = identities.assign(
                [Self.pose(330, track: 0, Self.broad), Self.pose(300, track: 1)], timestampMicroseconds: Self.time(frame))
            #expect(ids == [1, 0], "frame \(frame)")
        }
    }

    /// Two people with the same proportions standing in the same place, one nearer the camera
    /// (a torso of 150 px against 100), whose ROI tracks swap: their sizes tell them apart.
    @Test func sizesTellApartPeopleInTheSamePlace() {
        func pose(_ x: Double, track: Int, torso: Double) -> PersonIdentities.Observation {
            PersonIdentities.Observation(trackId: track, centre: SIMD2(x, 200), torsoLength: torso, signature: Self.tall)
        }
        var identities = PersonIdentities()
        #expect(identities.assign([pose(300, track: 0, torso: 100), pose(320, track: 1, torso: 150)], timestampMicroseconds: 0) == [0, 1])
        for frame in 1..<6 {
            let ids = identities.assign(
                [pose(320, track: 0, torso: 150), pose(300, track: 1, torso: 100)], timestampMicroseconds: Self.time(frame))
            #expect(ids == [1, 0], "frame \(frame)")
        }
    }

    /// Outside every person's gate, a pose is someone new; the gate grows while a person is
    /// not found.
    @Test func gatesStartNewPeople() {
        var identities = PersonIdentities()
        #expect(identities.assign([Self.pose(100, track: 0)], timestampMicroseconds: 0) == [0])
        // Two torso lengths away one frame later, the same track: beyond 0.5 + 5 × 0.04.
        #expect(identities.assign([Self.pose(300, track: 0)], timestampMicroseconds: Self.time(1)) == [1])
        // 0.8 torso lengths from person 0, not seen for two frames: within 0.5 + 5 × 0.08; 1.2
        // from person 1, beyond 0.5 + 5 × 0.04.
        #expect(identities.assign([Self.pose(180, track: 5)], timestampMicroseconds: Self.time(2)) == [0])
        // A pose without any proportions known is placed by position alone.
        let unknown = BodySignature(ratios: [0, 0, 0, 0, 0, 0], counts: [0, 0, 0, 0, 0, 0])
        #expect(identities.assign([Self.pose(185, track: 5, unknown)], timestampMicroseconds: Self.time(3)) == [0])
        // Person 1, lost for three frames, is 2.3 torso lengths away: beyond the recovery gate,
        // 1.5 + 5 × 0.12.
        #expect(identities.assign([Self.pose(185, track: 5), Self.pose(530, track: 6)], timestampMicroseconds: Self.time(4)) == [0, 2])
    }

    /// A person lost for a few frames comes back farther from where they were last seen than
    /// the tight gate allows (a pose found late, behind the body that hid it): the recovery
    /// gate takes them back, but never from a person seen on the previous frame.
    @Test func aPersonLostComesBackWithinTheRecoveryGate() {
        var identities = PersonIdentities()
        #expect(identities.assign([Self.pose(100, track: 0), Self.pose(600, track: 1)], timestampMicroseconds: 0) == [0, 1])
        #expect(identities.assign([Self.pose(600, track: 1)], timestampMicroseconds: Self.time(1)) == [1])
        #expect(identities.assign([Self.pose(600, track: 1)], timestampMicroseconds: Self.time(2)) == [1])
        // 1.2 torso lengths from person 0, lost for three frames: beyond 0.5 + 5 × 0.12, within
        // 1.5 + 5 × 0.12.
        #expect(identities.assign([Self.pose(600, track: 1), Self.pose(220, track: 2)], timestampMicroseconds: Self.time(3)) == [1, 0])
        // Person 1, seen on the previous frame, 1.2 torso lengths off: someone new.
        #expect(identities.assign([Self.pose(220, track: 2), Self.pose(720, track: 3)], timestampMicroseconds: Self.time(4)) == [0, 2])
    }

    /// While one person hides another, a second ROI track can land on the body in front: two
    /// poses of one body. The duplicate keeps the hidden person's id but does not move them onto
    /// the body in front, so they are found again where they come out, 30 frames a second; a
    /// duplicate that matches no one is not remembered.
    @Test func aSecondPoseOnOneBodyMovesNoOne() {
        let frame: Int64 = 33_333
        var identities = PersonIdentities()
        for index in 0..<30 {
            let tall = 100 + 10 * Double(index), broad = 500 - 10 * Double(index)
            let poses: [PersonIdentities.Observation]
            switch index {
            case ..<18: poses = [Self.pose(tall, track: 0), Self.pose(broad, track: 1, Self.broad)]
            case 18..<24: poses = [Self.pose(broad, track: 1, Self.broad), Self.pose(broad + 2, track: 0, Self.broad)]
            default: poses = [Self.pose(broad, track: 1, Self.broad), Self.pose(tall, track: 2)]
            }
            let ids = identities.assign(poses, timestampMicroseconds: Int64(index) * frame)
            #expect(ids == (index < 18 ? [0, 1] : [1, 0]), "frame \(index)")
        }
        var fresh = PersonIdentities()
        #expect(fresh.assign([Self.pose(300, track: 0), Self.pose(305, track: 1)], timestampMicroseconds: 0) == [0, 1])
        #expect(fresh.rememberedCount == 1)
    }

    /// People not found are forgotten after a second, and at most `lostCapacity` are kept, the
    /// most recently seen: memory stays bounded however long the video.
    @Test func lostPeopleAreBounded() {
        var identities = PersonIdentities()
        let capacity = identities.parameters.lostCapacity
        // A new person far from all the others on every frame, each seen once.
        for frame in 0..<(capacity + 5) {
            _ = identities.assign([Self.pose(1000 * Double(frame), track: frame)], timestampMicroseconds: Self.time(frame))
            #expect(identities.rememberedCount <= 1 + capacity)
        }
        #expect(identities.rememberedCount == 1 + capacity)
        // The first ones were dropped: the first person's place gives a new id.
        let next = capacity + 5
        #expect(identities.assign([Self.pose(0, track: 99)], timestampMicroseconds: Self.time(next)) == [next])
        // A second and a bit later, the latest person is forgotten too.
        let later = Self.time(next) + identities.parameters.memoryMicroseconds + 1
        #expect(identities.assign([], timestampMicroseconds: later) == [])
        #expect(identities.rememberedCount == 0)
        #expect(identities.assign([Self.pose(0, track: 99)], timestampMicroseconds: later + 40_000) == [next + 1])
    }

    /// Reset forgets everyone, and ids are never given twice.
    @Test func resetStartsNewPeople() {
        var identities = PersonIdentities()
        #expect(identities.assign([Self.pose(100, track: 0), Self.pose(400, track: 1)], timestampMicroseconds: 0) == [0, 1])
        identities.reset()
        #expect(identities.rememberedCount == 0)
        #expect(identities.assign([Self.pose(100, track: 0)], timestampMicroseconds: Self.time(1)) == [2])
    }

    /// The observation of a pose: torso centre and length in pixels from the normalized
    /// landmarks; the landmark counts are checked.
    @Test func observationsMeasureTheTorso() throws {
        var landmarks = [RawLandmark](repeating: RawLandmark(x: 0.5, y: 0.5, z: 0), count: 33)
        for (index, x, y) in [(11, 0.4, 0.2), (12, 0.6, 0.2), (23, 0.45, 0.6), (24, 0.55, 0.6)] as [(Int, Float, Float)] {
            landmarks[index] = RawLandmark(x: x, y: y, z: 0)
        }
        let world = [RawWorldLandmark](repeating: RawWorldLandmark(x: 0, y: 0, z: 0), count: 33)
        let observation = try PersonIdentities.Observation(
            trackId: 3, landmarks: landmarks, worldLandmarks: world, imageWidth: 200, imageHeight: 100)
        #expect(abs(observation.centre.x - 100) < 1e-4 && abs(observation.centre.y - 40) < 1e-4)
        #expect(abs(observation.torsoLength - 40) < 1e-4)
        #expect(throws: PipelineInputError.unexpectedLandmarkCount(expected: 33, actual: 32)) {
            try PersonIdentities.Observation(
                trackId: 3, landmarks: Array(landmarks.prefix(32)), worldLandmarks: world, imageWidth: 200, imageHeight: 100)
        }
    }

    /// Bone ratios from world landmarks: only bones whose ends are visible count, paired bones
    /// average their sides, the running mean caps its count, and the distance uses the ratios
    /// both signatures know.
    @Test func signaturesAreBoneRatiosOfVisibleBones() throws {
        var world = [RawWorldLandmark](repeating: RawWorldLandmark(x: 0, y: 0, z: 0, visibility: 0.9), count: 33)
        func place(_ index: Int, _ x: Float, _ y: Float, visibility: Float = 0.9) {
            world[index] = RawWorldLandmark(x: x, y: y, z: 0, visibility: visibility)
        }
        // Shoulders and hips 0.4 m apart, torso 0.5 m on both sides, thighs and shins 0.4 m.
        for (index, x, y) in [(11, -0.2, -0.5), (12, 0.2, -0.5), (23, -0.2, 0), (24, 0.2, 0)] as [(Int, Float, Float)] {
            place(index, x, y)
        }
        place(13, -0.2, -0.2)  // upper arms 0.3 and 0.26 m
        place(14, 0.2, -0.24)
        place(15, -0.2, 0, visibility: 0.1)  // forearms unseen
        place(16, 0.2, 0, visibility: 0.1)
        for (index, x, y) in [(25, -0.2, 0.4), (26, 0.2, 0.4), (27, -0.2, 0.8), (28, 0.2, 0.8)] as [(Int, Float, Float)] {
            place(index, x, y)
        }
        let signature = BodySignature(worldLandmarks: world)
        let expected = [0.8, 0.8, 0.56, 0, 0.8, 0.8]
        #expect(zip(signature.ratios, expected).allSatisfy { abs($0 - $1) < 1e-6 }, "\(signature.ratios)")
        #expect(signature.counts == [1, 1, 1, 0, 1, 1])
        #expect(BodySignature(worldLandmarks: Array(world.prefix(20))).counts == [0, 0, 0, 0, 0, 0])

        var averaged = signature
        let other = BodySignature(ratios: [1.0, 0.8, 0.56, 0.5, 0.8, 0.8], counts: [1, 1, 1, 1, 1, 1])
        averaged.add(other)
        #expect(abs(averaged.ratios[0] - 0.9) < 1e-6 && averaged.counts[0] == 2)
        #expect(averaged.ratios[3] == 0.5 && averaged.counts[3] == 1)
        for _ in 0..<50 { averaged.add(other) }
        #expect(averaged.counts.allSatisfy { $0 <= BodySignature.averagedFrames })

        let distance = try #require(signature.distance(to: other))
        // Five shared ratios, one of them 0.8 against 1.0.
        #expect(abs(distance - abs(log(0.8)) / 5) < 1e-6)
        let unknown = BodySignature(ratios: [0, 0, 0, 0, 0, 0], counts: [0, 0, 0, 0, 0, 0])
        #expect(signature.distance(to: unknown) == nil)
    }
}
