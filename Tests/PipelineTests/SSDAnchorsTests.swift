import Testing
import Pipeline

@Suite struct SSDAnchorsTests {
    @Test func presetCountsMatchTheModels() throws {
        #expect(SSDAnchorOptions.poseDetector.makeAnchors().count == 2254)
        #expect(SSDAnchorOptions.palmDetector.makeAnchors().count == 2016)
        // The presets skip validation; the validating initializer must agree with them.
        let pose = try SSDAnchorOptions(inputWidth: 224, inputHeight: 224, strides: [8, 16, 32, 32, 32])
        let palm = try SSDAnchorOptions(inputWidth: 192, inputHeight: 192, strides: [8, 16, 16, 16])
        #expect(pose == SSDAnchorOptions.poseDetector)
        #expect(palm == SSDAnchorOptions.palmDetector)
        #expect(pose.makeAnchors() == SSDAnchorOptions.poseDetector.makeAnchors())
    }

    @Test func poseAnchorsFollowTheGridFormula() {
        let anchors = SSDAnchorOptions.poseDetector.makeAnchors()
        // Group 1: 28×28 cells, 2 anchors each; centre ((col + 0.5)/28, (row + 0.5)/28).
        expectAnchor(anchors[0], x: 0.5 / 28, y: 0.5 / 28)
        expectAnchor(anchors[1], x: 0.5 / 28, y: 0.5 / 28)
        expectAnchor(anchors[2], x: 1.5 / 28, y: 0.5 / 28)
        expectAnchor(anchors[56], x: 0.5 / 28, y: 1.5 / 28)  // cell 28 = row 1, column 0
        expectAnchor(anchors[1567], x: 27.5 / 28, y: 27.5 / 28)
        // Group 2: 14×14 cells, 2 anchors each, from 1568.
        expectAnchor(anchors[1568], x: 0.5 / 14, y: 0.5 / 14)
        expectAnchor(anchors[1959], x: 13.5 / 14, y: 13.5 / 14)
        // Group 3: three stride-32 layers merged, 7×7 cells, 6 anchors each, from 1960.
        for k in 1960..<1966 { expectAnchor(anchors[k], x: 0.5 / 7, y: 0.5 / 7) }
        expectAnchor(anchors[1966], x: 1.5 / 7, y: 0.5 / 7)
        expectAnchor(anchors[2253], x: 6.5 / 7, y: 6.5 / 7)
        // The check values printed in docs/PIPELINE.md, "SSD anchors".
        #expect(isClose(anchors[2].xCenter, 0.053571, 1e-6))
        #expect(isClose(anchors[1568].xCenter, 0.035714, 1e-6))
        #expect(isClose(anchors[2253].yCenter, 0.928571, 1e-6))
        #expect(anchors.allSatisfy { $0.width == 1 && $0.height == 1 })
    }

    @Test func palmAnchorsFollowTheGridFormula() {
        let anchors = SSDAnchorOptions.palmDetector.makeAnchors()
        expectAnchor(anchors[0], x: 0.5 / 24, y: 0.5 / 24)
        expectAnchor(anchors[48], x: 0.5 / 24, y: 1.5 / 24)  // cell 24 = row 1
        expectAnchor(anchors[1151], x: 23.5 / 24, y: 23.5 / 24)
        // Three stride-16 layers merged: 12×12 cells, 6 anchors each, from 1152.
        expectAnchor(anchors[1152], x: 0.5 / 12, y: 0.5 / 12)
        expectAnchor(anchors[1158], x: 1.5 / 12, y: 0.5 / 12)
        expectAnchor(anchors[2015], x: 11.5 / 12, y: 11.5 / 12)
        #expect(isClose(anchors[0].xCenter, 0.020833, 1e-6))
        #expect(isClose(anchors[2015].xCenter, 0.958333, 1e-6))
    }

    @Test func nonSquareInputsUseCeilingDivision() throws {
        // 20×10 input, stride 8: ceil → 3 columns × 2 rows, then stride 4: 5 × 3.
        let options = try SSDAnchorOptions(inputWidth: 20, inputHeight: 10, strides: [8, 4], anchorsPerLayer: 1)
        let anchors = options.makeAnchors()
        #expect(options.anchorCount == 6 + 15)
        #expect(anchors.count == 21)
        expectAnchor(anchors[2], x: 2.5 / 3, y: 0.5 / 2)
        expectAnchor(anchors[3], x: 0.5 / 3, y: 1.5 / 2)
        expectAnchor(anchors[6], x: 0.5 / 5, y: 0.5 / 3)
    }

    @Test func badOptionsThrow() {
        #expect(throws: PipelineInputError.self) { try SSDAnchorOptions(inputWidth: 0, inputHeight: 224, strides: [8]) }
        #expect(throws: PipelineInputError.self) { try SSDAnchorOptions(inputWidth: 224, inputHeight: 224, strides: []) }
        #expect(throws: PipelineInputError.self) { try SSDAnchorOptions(inputWidth: 224, inputHeight: 224, strides: [8, 0]) }
        #expect(throws: PipelineInputError.self) {
            try SSDAnchorOptions(inputWidth: 224, inputHeight: 224, strides: [8], anchorsPerLayer: -2)
        }
        #expect(throws: PipelineInputError.sizeOutOfRange(what: "SSD anchor grid")) {
            try SSDAnchorOptions(inputWidth: Int.max, inputHeight: Int.max, strides: [1])
        }
        #expect(throws: PipelineInputError.sizeOutOfRange(what: "SSD anchor grid")) {
            try SSDAnchorOptions(inputWidth: 8192, inputHeight: 8192, strides: [1])
        }
    }

    private func expectAnchor(_ anchor: SSDAnchor, x: Float, y: Float, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(isClose(anchor.xCenter, x, 1e-7), "x \(anchor.xCenter) != \(x)", sourceLocation: sourceLocation)
        #expect(isClose(anchor.yCenter, y, 1e-7), "y \(anchor.yCenter) != \(y)", sourceLocation: sourceLocation)
    }
}
