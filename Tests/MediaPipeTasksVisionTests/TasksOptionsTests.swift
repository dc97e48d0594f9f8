import Testing

@testable import MediaPipeTasksVision

/// Stands in for a live-stream delegate object in option validation.
private final class DelegateStandIn {}

@Suite("Task options")
struct TasksOptionsTests {
    @Test("pose defaults follow the iOS API")
    func poseDefaults() {
        let options = PoseLandmarkerOptions()
        #expect(options.runningMode == .image)
        #expect(options.numPoses == 1)
        #expect(options.minPoseDetectionConfidence == 0.5)
        #expect(options.minPosePresenceConfidence == 0.5)
        #expect(options.minTrackingConfidence == 0.5)
        #expect(options.shouldOutputSegmentationMasks == false)
        #expect(options.shouldSmoothEachTrack == false)
        #expect(options.baseOptions.modelAssetPath == nil)
        #expect(options.baseOptions.modelAssetBuffer == nil)
        #expect(options.liveStreamDelegateObject == nil)
    }

    @Test("hand defaults follow the iOS API")
    func handDefaults() {
        let options = HandLandmarkerOptions()
        #expect(options.runningMode == .image)
        #expect(options.numHands == 1)
        #expect(options.minHandDetectionConfidence == 0.5)
        #expect(options.minHandPresenceConfidence == 0.5)
        #expect(options.minTrackingConfidence == 0.5)
    }

    @Test("the iOS snippet's option lines work unchanged")
    func snippetStyle() throws {
        let modelPath: String? = "/models/pose_landmarker.task"
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .video
        options.minPoseDetectionConfidence = 0.3
        options.minPosePresenceConfidence = 0.4
        options.minTrackingConfidence = 0.6
        options.numPoses = 2
        let configuration = try options.validated()
        #expect(configuration == PoseLandmarkerConfiguration(
            modelAsset: .path("/models/pose_landmarker.task"), runningMode: .video, numPoses: 2,
            minPoseDetectionConfidence: 0.3, minPosePresenceConfidence: 0.4,
            minTrackingConfidence: 0.6, shouldOutputSegmentationMasks: false, shouldSmoothEachTrack: false))

        let hand = HandLandmarkerOptions()
        hand.baseOptions.modelAssetBuffer = [1, 2]
        hand.numHands = 2
        hand.minHandDetectionConfidence = 0
        hand.minHandPresenceConfidence = 1
        #expect(try hand.validated() == HandLandmarkerConfiguration(
            modelAsset: .buffer([1, 2]), runningMode: .image, numHands: 2,
            minHandDetectionConfidence: 0, minHandPresenceConfidence: 1, minTrackingConfidence: 0.5))
    }

    @Test("exactly one model asset source")
    func modelAsset() throws {
        let options = PoseLandmarkerOptions()
        #expect(throws: TaskError.missingModelAsset) { try options.validated() }
        options.baseOptions.modelAssetPath = ""
        options.baseOptions.modelAssetBuffer = []
        #expect(throws: TaskError.missingModelAsset) { try options.validated() }
        options.baseOptions.modelAssetPath = "a.task"
        options.baseOptions.modelAssetBuffer = [0]
        #expect(throws: TaskError.conflictingModelAssets) { try options.validated() }
        options.baseOptions.modelAssetPath = nil
        #expect(try options.validated().modelAsset == .buffer([0]))

        let hand = HandLandmarkerOptions()
        #expect(throws: TaskError.missingModelAsset) { try hand.validated() }
    }

    @Test("counts must be in 1...64", arguments: [0, -1, 65, Int.min, Int.max])
    func countOutOfRange(count: Int) {
        let pose = PoseLandmarkerOptions()
        pose.baseOptions.modelAssetPath = "p.task"
        pose.numPoses = count
        #expect(throws: TaskError.countOutOfRange(option: "numPoses", value: count, allowed: 1...64)) {
            try pose.validated()
        }
        let hand = HandLandmarkerOptions()
        hand.baseOptions.modelAssetPath = "h.task"
        hand.numHands = count
        #expect(throws: TaskError.countOutOfRange(option: "numHands", value: count, allowed: 1...64)) {
            try hand.validated()
        }
    }

    @Test("counts at the limits are accepted")
    func countLimits() throws {
        let pose = PoseLandmarkerOptions()
        pose.baseOptions.modelAssetPath = "p.task"
        for count in [1, PoseLandmarkerOptions.maximumNumPoses] {
            pose.numPoses = count
            #expect(try pose.validated().numPoses == count)
        }
    }

    @Test("confidences must be in [0, 1]", arguments: [-0.001, 1.001, -Float.infinity, Float.infinity, 2])
    func confidenceOutOfRange(value: Float) {
        let poseSetters: [(String, (PoseLandmarkerOptions) -> Void)] = [
            ("minPoseDetectionConfidence", { $0.minPoseDetectionConfidence = value }),
            ("minPosePresenceConfidence", { $0.minPosePresenceConfidence = value }),
            ("minTrackingConfidence", { $0.minTrackingConfidence = value }),
        ]
        for (name, set) in poseSetters {
            let options = PoseLandmarkerOptions()
            options.baseOptions.modelAssetPath = "p.task"
            set(options)
            #expect(throws: TaskError.confidenceOutOfRange(option: name, value: value)) { try options.validated() }
        }
        let handSetters: [(String, (HandLandmarkerOptions) -> Void)] = [
            ("minHandDetectionConfidence", { $0.minHandDetectionConfidence = value }),
            ("minHandPresenceConfidence", { $0.minHandPresenceConfidence = value }),
            ("minTrackingConfidence", { $0.minTrackingConfidence = value }),
        ]
        for (name, set) in handSetters {
            let options = HandLandmarkerOptions()
            options.baseOptions.modelAssetPath = "h.task"
            set(options)
            #expect(throws: TaskError.confidenceOutOfRange(option: name, value: value)) { try options.validated() }
        }
    }

    @Test("a NaN confidence is rejected")
    func nanConfidence() {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = "p.task"
        options.minPosePresenceConfidence = .nan
        do {
            _ = try options.validated()
            Issue.record("NaN accepted")
        } catch {
            guard case .confidenceOutOfRange(let option, let value) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(option == "minPosePresenceConfidence")
            #expect(value.isNaN)
        }
    }

    @Test("the delegate is required in live-stream mode and refused otherwise")
    func delegatePresence() throws {
        let delegate = DelegateStandIn()
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = "p.task"
        options.runningMode = .liveStream
        #expect(throws: TaskError.missingLiveStreamDelegate(option: "poseLandmarkerLiveStreamDelegate")) {
            try options.validated()
        }
        options.liveStreamDelegateObject = delegate
        #expect(try options.validated().runningMode == .liveStream)
        for mode in [RunningMode.image, .video] {
            options.runningMode = mode
            #expect(throws: TaskError.unexpectedLiveStreamDelegate(
                option: "poseLandmarkerLiveStreamDelegate", runningMode: mode)) {
                try options.validated()
            }
        }

        let hand = HandLandmarkerOptions()
        hand.baseOptions.modelAssetPath = "h.task"
        hand.runningMode = .liveStream
        #expect(throws: TaskError.missingLiveStreamDelegate(option: "handLandmarkerLiveStreamDelegate")) {
            try hand.validated()
        }
        hand.liveStreamDelegateObject = delegate
        #expect(try hand.validated().runningMode == .liveStream)
        hand.runningMode = .video
        #expect(throws: TaskError.unexpectedLiveStreamDelegate(
            option: "handLandmarkerLiveStreamDelegate", runningMode: .video)) {
            try hand.validated()
        }
    }

    @Test("per-track smoothing is refused in image mode and accepted with tracks")
    func smoothEachTrackNeedsTracking() throws {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = "p.task"
        options.shouldSmoothEachTrack = true
        #expect(throws: TaskError.trackingOptionInImageMode(option: "shouldSmoothEachTrack")) {
            try options.validated()
        }
        options.runningMode = .video
        #expect(try options.validated().shouldSmoothEachTrack)
        let delegate = DelegateStandIn()
        options.runningMode = .liveStream
        options.liveStreamDelegateObject = delegate
        #expect(try options.validated().shouldSmoothEachTrack)
        withExtendedLifetime(delegate) {}
        options.runningMode = .image
        options.liveStreamDelegateObject = nil
        options.shouldSmoothEachTrack = false
        #expect(try options.validated().shouldSmoothEachTrack == false)
    }

    @Test("the options hold the delegate weakly")
    func weakDelegate() {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = "p.task"
        options.runningMode = .liveStream
        do {
            let delegate = DelegateStandIn()
            options.liveStreamDelegateObject = delegate
            #expect(options.liveStreamDelegateObject != nil)
        }
        #expect(options.liveStreamDelegateObject == nil)
        #expect(throws: TaskError.missingLiveStreamDelegate(option: "poseLandmarkerLiveStreamDelegate")) {
            try options.validated()
        }
    }

    @Test("messages name the option and the value")
    func messages() {
        #expect(TaskError.confidenceOutOfRange(option: "minTrackingConfidence", value: 1.5).description
            == "minTrackingConfidence must be in [0.0, 1.0], got 1.5.")
        #expect(TaskError.countOutOfRange(option: "numHands", value: 0, allowed: 1...64).description
            == "numHands must be in 1...64, got 0.")
        #expect(TaskError.nonMonotonicTimestamp(previous: 40, received: 33).description
            .hasPrefix("Input timestamp must be monotonically increasing."))
        #expect(TaskError.nonMonotonicTimestamp(previous: 40, received: 33).description.contains("33 ms after 40 ms"))
        #expect(TaskError.runningModeMismatch(required: .image, current: .liveStream).description
            .contains("live stream"))
        #expect(TaskError.missingModelAsset.errorDescription?.contains("modelAssetPath") == true)
        #expect(TaskError.trackingOptionInImageMode(option: "shouldSmoothEachTrack").description
            .hasPrefix("shouldSmoothEachTrack applies only to the video and live stream running modes"))
    }
}
