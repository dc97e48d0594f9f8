import Testing

@testable import MediaPipeTasksVision

@Suite("Landmark names and connections")
struct TasksLandmarkTopologyTests {
    private static func edge(_ a: PoseLandmark, _ b: PoseLandmark) -> Set<Int> { [a.rawValue, b.rawValue] }
    private static func edge(_ a: HandLandmark, _ b: HandLandmark) -> Set<Int> { [a.rawValue, b.rawValue] }
    private static func undirected(_ connections: [Connection]) -> [Set<Int>] {
        connections.map { [$0.start, $0.end] }
    }

    @Test("pose landmark indices follow the model's order")
    func poseIndices() {
        #expect(PoseLandmark.allCases.map(\.rawValue) == Array(0..<33))
        #expect(PoseLandmark.nose.rawValue == 0)
        #expect(PoseLandmark.rightEyeOuter.rawValue == 6)
        #expect(PoseLandmark.mouthRight.rawValue == 10)
        #expect(PoseLandmark.leftShoulder.rawValue == 11)
        #expect(PoseLandmark.rightWrist.rawValue == 16)
        #expect(PoseLandmark.rightThumb.rawValue == 22)
        #expect(PoseLandmark.leftHip.rawValue == 23)
        #expect(PoseLandmark.leftHeel.rawValue == 29)
        #expect(PoseLandmark.rightFootIndex.rawValue == 32)
    }

    @Test("hand landmark indices follow the model's order")
    func handIndices() {
        #expect(HandLandmark.allCases.map(\.rawValue) == Array(0..<21))
        #expect(HandLandmark.thumbTIP.rawValue == 4)
        #expect(HandLandmark.indexFingerMCP.rawValue == 5)
        #expect(HandLandmark.middleFingerMCP.rawValue == 9)
        #expect(HandLandmark.ringFingerTIP.rawValue == 16)
        #expect(HandLandmark.pinkyMCP.rawValue == 17)
        #expect(HandLandmark.pinkyTIP.rawValue == 20)
    }

    @Test("35 distinct pose edges covering all 33 landmarks")
    func poseConnectionShape() {
        let edges = Self.undirected(PoseLandmarksConnections.poseLandmarks)
        #expect(edges.count == 35)
        #expect(Set(edges).count == 35)
        #expect(edges.allSatisfy { $0.count == 2 && $0.allSatisfy { (0..<33).contains($0) } })
        #expect(Set(edges.flatMap { $0 }) == Set(0..<33))
    }

    @Test("pose edges join the expected body parts")
    func poseConnectionMeaning() {
        let edges = Set(Self.undirected(PoseLandmarksConnections.poseLandmarks))
        let expected: [(PoseLandmark, PoseLandmark)] = [
            (.nose, .leftEyeInner), (.leftEyeOuter, .leftEar), (.nose, .rightEyeInner), (.rightEyeOuter, .rightEar),
            (.mouthLeft, .mouthRight), (.leftShoulder, .rightShoulder), (.leftShoulder, .leftElbow),
            (.leftElbow, .leftWrist), (.leftWrist, .leftThumb), (.leftPinky, .leftIndex),
            (.rightElbow, .rightWrist), (.rightWrist, .rightPinky), (.leftShoulder, .leftHip),
            (.rightShoulder, .rightHip), (.leftHip, .rightHip), (.leftHip, .leftKnee), (.leftKnee, .leftAnkle),
            (.rightAnkle, .rightHeel), (.rightHeel, .rightFootIndex), (.leftAnkle, .leftFootIndex),
        ]
        for (a, b) in expected {
            #expect(edges.contains(Self.edge(a, b)), "\(a)–\(b)")
        }
        // Only the mouth, shoulders and hips cross between the subject's left and right sides.
        let crossing: Set<Set<Int>> = [
            Self.edge(.mouthLeft, .mouthRight), Self.edge(.leftShoulder, .rightShoulder),
            Self.edge(.leftHip, .rightHip),
        ]
        func side(_ index: Int) -> String? {
            let name = String(describing: PoseLandmark(rawValue: index)!)
            if name.hasPrefix("left") || name.hasSuffix("Left") { return "left" }
            if name.hasPrefix("right") || name.hasSuffix("Right") { return "right" }
            return nil
        }
        for edge in edges where !crossing.contains(edge) {
            let sides = Set(edge.compactMap(side))
            #expect(sides.count <= 1, "edge \(edge) crosses sides")
        }
    }

    @Test("hand edges: palm, then each finger from base to tip")
    func handConnections() {
        #expect(HandLandmarksConnections.handConnections.count == 21)
        #expect(HandLandmarksConnections.handConnections
            == HandLandmarksConnections.handPalmConnections + HandLandmarksConnections.handThumbConnections
            + HandLandmarksConnections.handIndexFingerConnections
            + HandLandmarksConnections.handMiddleFingerConnections
            + HandLandmarksConnections.handRingFingerConnections + HandLandmarksConnections.handPinkyConnections)
        #expect(Set(Self.undirected(HandLandmarksConnections.handPalmConnections)) == [
            Self.edge(.wrist, .thumbCMC), Self.edge(.wrist, .indexFingerMCP),
            Self.edge(.middleFingerMCP, .ringFingerMCP), Self.edge(.ringFingerMCP, .pinkyMCP),
            Self.edge(.indexFingerMCP, .middleFingerMCP), Self.edge(.wrist, .pinkyMCP),
        ])
        let fingers: [([Connection], [HandLandmark])] = [
            (HandLandmarksConnections.handThumbConnections, [.thumbCMC, .thumbMCP, .thumbIP, .thumbTIP]),
            (HandLandmarksConnections.handIndexFingerConnections,
             [.indexFingerMCP, .indexFingerPIP, .indexFingerDIP, .indexFingerTIP]),
            (HandLandmarksConnections.handMiddleFingerConnections,
             [.middleFingerMCP, .middleFingerPIP, .middleFingerDIP, .middleFingerTIP]),
            (HandLandmarksConnections.handRingFingerConnections,
             [.ringFingerMCP, .ringFingerPIP, .ringFingerDIP, .ringFingerTIP]),
            (HandLandmarksConnections.handPinkyConnections, [.pinkyMCP, .pinkyPIP, .pinkyDIP, .pinkyTIP]),
        ]
        for (connections, joints) in fingers {
            #expect(connections == (0..<3).map {
                Connection(start: joints[$0].rawValue, end: joints[$0 + 1].rawValue)
            })
        }
        #expect(Set(HandLandmarksConnections.handConnections.flatMap { [$0.start, $0.end] }) == Set(0..<21))
    }
}
