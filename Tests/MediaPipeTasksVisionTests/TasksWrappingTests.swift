import Dispatch
import Foundation
import TestSupport
import Testing

@testable import MediaPipeTasksVision

/// The delegate protocol of `EchoLandmarker`, shaped like `PoseLandmarkerLiveStreamDelegate`.
private protocol EchoLandmarkerLiveStreamDelegate: AnyObject {
    func echoLandmarker(
        _ echoLandmarker: EchoLandmarker, didFinishDetection result: PoseLandmarkerResult?,
        timestampInMilliseconds: Int, error: Error?)
}

extension PoseLandmarkerOptions {
    /// The public delegate property, layered on the options' type-erased weak storage as the
    /// real landmarkers' `…LiveStreamDelegate` properties are.
    fileprivate var echoLandmarkerLiveStreamDelegate: (any EchoLandmarkerLiveStreamDelegate)? {
        get { liveStreamDelegateObject as? any EchoLandmarkerLiveStreamDelegate }
        set { liveStreamDelegateObject = newValue }
    }
}

/// A landmarker-shaped wrapper around `VisionTaskRunner`, written the way `PoseLandmarker` is
/// meant to be: validate the options, pick the mode, forward live results to the weak delegate.
/// Its "pipeline" reports one pose whose nose x is the input value.
private final class EchoLandmarker: Sendable {
    private let runner: VisionTaskRunner<Float, PoseLandmarkerResult>

    init(options: PoseLandmarkerOptions) throws {
        let configuration = try options.validated()
        let owner = WeakReference<EchoLandmarker>(nil)
        let mode: VisionTaskRunner<Float, PoseLandmarkerResult>.Mode
        switch configuration.runningMode {
        case .image: mode = .image
        case .video: mode = .video
        case .liveStream:
            let delegate = WeakReference(options.echoLandmarkerLiveStreamDelegate)
            mode = .liveStream({ result, timestamp, error in
                guard let landmarker = owner.object, let delegate = delegate.object else { return }
                delegate.echoLandmarker(
                    landmarker, didFinishDetection: result, timestampInMilliseconds: timestamp, error: error)
            })
        }
        runner = VisionTaskRunner(mode: mode, label: "test.echo") { value, timestamp, _ in
            PoseLandmarkerResult(
                landmarks: [[NormalizedLandmark(x: value, y: 0, z: 0)]], worldLandmarks: [[]],
                segmentationMasks: [], timestampInMilliseconds: timestamp)
        }
        if configuration.runningMode == .liveStream { owner.object = self }
    }

    deinit { runner.close() }

    func detect(image: Float) throws -> PoseLandmarkerResult {
        try runner.processImage(image)
    }

    func detect(videoFrame: Float, timestampInMilliseconds: Int) throws -> PoseLandmarkerResult {
        try runner.processVideoFrame(videoFrame, timestampInMilliseconds: timestampInMilliseconds)
    }

    func detectAsync(image: Float, timestampInMilliseconds: Int) throws {
        try runner.processLiveStreamFrame(image, timestampInMilliseconds: timestampInMilliseconds)
    }
}

/// Records what the delegate receives.
private final class EchoResultProcessor: NSObject, EchoLandmarkerLiveStreamDelegate {
    let results = TasksRecorder<(ObjectIdentifier, Float?, Int)>()
    let delivered = DispatchSemaphore(value: 0)

    func echoLandmarker(
        _ echoLandmarker: EchoLandmarker, didFinishDetection result: PoseLandmarkerResult?,
        timestampInMilliseconds: Int, error: Error?
    ) {
        results.append((ObjectIdentifier(echoLandmarker), result?.landmarks.first?.first?.x, timestampInMilliseconds))
        delivered.signal()
    }
}

/// Blocks in its callback until released, so that a test can drop the landmarker meanwhile.
private final class BlockingEchoProcessor: EchoLandmarkerLiveStreamDelegate {
    let entered = DispatchSemaphore(value: 0)
    let proceed = DispatchSemaphore(value: 0)

    func echoLandmarker(
        _ echoLandmarker: EchoLandmarker, didFinishDetection result: PoseLandmarkerResult?,
        timestampInMilliseconds: Int, error: Error?
    ) {
        entered.signal()
        proceed.wait()
    }
}

private final class DelegateObject: EchoLandmarkerLiveStreamDelegate {
    func echoLandmarker(
        _ echoLandmarker: EchoLandmarker, didFinishDetection result: PoseLandmarkerResult?,
        timestampInMilliseconds: Int, error: Error?
    ) {}
}

@Suite("Wrapping the engine in a landmarker")
struct TasksWrappingTests {
    @Test("image and video modes return results stamped with their timestamps")
    func synchronousModes() throws {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetBuffer = [0]
        let imageLandmarker = try EchoLandmarker(options: options)
        #expect(try imageLandmarker.detect(image: 0.25).timestampInMilliseconds == 0)
        #expect(try imageLandmarker.detect(image: 0.5).landmarks == [[NormalizedLandmark(x: 0.5, y: 0, z: 0)]])

        options.runningMode = .video
        let videoLandmarker = try EchoLandmarker(options: options)
        #expect(try videoLandmarker.detect(videoFrame: 1, timestampInMilliseconds: 40).timestampInMilliseconds == 40)
        #expect(throws: TaskError.runningModeMismatch(required: .image, current: .video)) {
            try videoLandmarker.detect(image: 0)
        }
    }

    @Test("live-stream results reach the weak delegate with the landmarker itself")
    func liveStreamDelegate() throws {
        let processor = EchoResultProcessor()
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetBuffer = [0]
        options.runningMode = .liveStream
        options.echoLandmarkerLiveStreamDelegate = processor
        let landmarker = try EchoLandmarker(options: options)
        for (index, timestamp) in [10, 20, 30].enumerated() {
            try landmarker.detectAsync(image: Float(index), timestampInMilliseconds: timestamp)
            #expect(processor.delivered.wait(timeout: .now() + 10) == .success)
        }
        let results = processor.results.values
        #expect(results.map(\.0) == Array(repeating: ObjectIdentifier(landmarker), count: 3))
        #expect(results.map(\.1) == [0, 1, 2])
        #expect(results.map(\.2) == [10, 20, 30])
    }

    @Test("a landmarker released during its own callback closes without deadlock")
    func releasedInCallback() throws {
        let processor = BlockingEchoProcessor()
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetBuffer = [0]
        options.runningMode = .liveStream
        options.echoLandmarkerLiveStreamDelegate = processor
        var landmarker: EchoLandmarker? = try EchoLandmarker(options: options)
        weak let weakLandmarker = landmarker
        try landmarker?.detectAsync(image: 1, timestampInMilliseconds: 1)
        #expect(processor.entered.wait(timeout: .now() + 10) == .success)
        // The callback's reference is now the last one: its deinit, and `close()`, run on the
        // delivery queue.
        landmarker = nil
        processor.proceed.signal()
        let deadline = Date().addingTimeInterval(10)
        while weakLandmarker != nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
        #expect(weakLandmarker == nil)
    }

    @Test("WeakReference holds class-bound existentials weakly")
    func weakReference() {
        let reference = WeakReference<any EchoLandmarkerLiveStreamDelegate>(nil)
        #expect(reference.object == nil)
        do {
            let delegate = DelegateObject()
            reference.object = delegate
            #expect(reference.object === delegate)
        }
        #expect(reference.object == nil)
    }

    @Test("a landmarker without a delegate in live-stream mode is not created")
    func missingDelegate() {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetBuffer = [0]
        options.runningMode = .liveStream
        #expect(throws: TaskError.missingLiveStreamDelegate(option: "poseLandmarkerLiveStreamDelegate")) {
            try EchoLandmarker(options: options)
        }
    }
}
