@testable import Pipeline
import Testing

/// The merge of the refined face model's sets into 478 landmarks, on made-up points whose
/// values say where they came from.
@Suite struct FaceLandmarkRefinementTests {
    static let mesh = (0..<468).map { RawLandmark(x: Float($0) / 1000, y: Float($0) / 2000, z: Float($0) * 0.001 - 0.2) }
    static func sets(offset: Float) -> [[RawLandmark]] {
        FaceLandmarkRefinement.pointCounts.enumerated().map { set, count in
            (0..<count).map { RawLandmark(x: offset + Float(set), y: offset + Float($0), z: 99) }
        }
    }

    @Test func setsOverwriteXYAndIrisesTakeTheContourDepth() throws {
        let refined = try FaceLandmarkRefinement.refine(mesh: Self.mesh, sets: Self.sets(offset: 10))
        #expect(refined.count == 478)
        // A lip target: x and y from the lips set, z kept from the mesh.
        let lip = FaceLandmarkRefinement.lipsTargets[3]
        #expect(refined[lip].x == 10 && refined[lip].y == 13 && refined[lip].z == Self.mesh[lip].z)
        // A mesh point no set touches keeps all three.
        let untouched = (0..<468).first { index in
            ![FaceLandmarkRefinement.lipsTargets, FaceLandmarkRefinement.imageLeftEyeTargets,
              FaceLandmarkRefinement.imageRightEyeTargets].contains { $0.contains(index) }
        }!
        #expect(refined[untouched] == Self.mesh[untouched])
        // The irises: x and y from their sets, z the Double mean of the contour's z, as Float.
        let sources = FaceLandmarkRefinement.imageLeftIrisDepthSources
        let expected = Float(sources.reduce(0.0) { $0 + Double(refined[$1].z) } / Double(sources.count))
        for offset in 0..<5 {
            #expect(refined[468 + offset].x == 13 && refined[468 + offset].y == 10 + Float(offset))
            #expect(refined[468 + offset].z == expected)
            #expect(refined[473 + offset].x == 14)
        }
        // The set's own z (99) is never used.
        #expect(!refined.contains { $0.z == 99 })
    }

    @Test func everyTargetIsAMeshIndexAndTheTablesHaveTheirSizes() {
        #expect(FaceLandmarkRefinement.lipsTargets.count == 80)
        #expect(FaceLandmarkRefinement.imageLeftEyeTargets.count == 71)
        #expect(FaceLandmarkRefinement.imageRightEyeTargets.count == 71)
        for table in [FaceLandmarkRefinement.lipsTargets, FaceLandmarkRefinement.imageLeftEyeTargets,
                      FaceLandmarkRefinement.imageRightEyeTargets, FaceLandmarkRefinement.imageLeftIrisDepthSources,
                      FaceLandmarkRefinement.imageRightIrisDepthSources] {
            #expect(table.allSatisfy { (0..<468).contains($0) })
            #expect(Set(table).count == table.count, "no index twice")
        }
    }

    @Test func wrongSizesAreRefused() {
        #expect(throws: PipelineInputError.unexpectedLandmarkCount(expected: 468, actual: 467)) {
            try FaceLandmarkRefinement.refine(mesh: Array(Self.mesh.dropLast()), sets: Self.sets(offset: 0))
        }
        var short = Self.sets(offset: 0)
        short[1].removeLast()
        #expect(throws: PipelineInputError.unexpectedLandmarkCount(expected: 71, actual: 70)) {
            try FaceLandmarkRefinement.refine(mesh: Self.mesh, sets: short)
        }
        #expect(throws: PipelineInputError.unexpectedLandmarkCount(expected: 5, actual: 4)) {
            try FaceLandmarkRefinement.refine(mesh: Self.mesh, sets: Array(Self.sets(offset: 0).dropLast()))
        }
    }
}
