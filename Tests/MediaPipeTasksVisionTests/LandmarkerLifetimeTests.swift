import Dispatch
import Foundation
@testable import MediaPipeTasksVision
import TestSupport
import Testing

/// A landmarker is freed once its user lets go of it: no retain cycle through the live-stream
/// delegate or the private queues (`PoseDetectorLifetimeTests` checks ML Kit's detector). (The
/// suite's leak check under the address sanitizer would also catch one, but only at exit and
/// without naming the mode.)
@Suite struct LandmarkerLifetimeTests {
    /// Polls `isReleased` every millisecond for up to 10 s. Work already on a landmarker's
    /// private queue may hold it until that work returns; nothing else should.
    static func eventually(_ isReleased: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while !isReleased() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return true
    }

    static func clipFrame() throws -> MPImage {
        try MPImage(contentsOfFile: Fixtures.path("video/t1_sweep/frame_0010.png"))
    }

    /// Runs two frames through `landmarker` in its mode; in live-stream mode also closes it when
    /// `closeLiveStream` is set, else leaves the frames pending.
    static func use(_ landmarker: PoseLandmarker, mode: RunningMode, frame: MPImage, closeLiveStream: Bool) throws {
        switch mode {
        case .image:
            _ = try landmarker.detect(image: frame)
            _ = try landmarker.detect(image: frame)
        case .video:
            _ = try landmarker.detect(videoFrame: frame, timestampInMilliseconds: 0)
            _ = try landmarker.detect(videoFrame: frame, timestampInMilliseconds: 40)
        case .liveStream:
            try landmarker.detectAsync(image: frame, timestampInMilliseconds: 0)
            try landmarker.detectAsync(image: frame, timestampInMilliseconds: 40)
            if closeLiveStream { landmarker.close() }
        }
    }

    static func use(_ landmarker: HandLandmarker, mode: RunningMode, frame: MPImage, closeLiveStream: Bool) throws {
        switch mode {
        case .image:
            _ = try landmarker.detect(image: frame)
            _ = try landmarker.detect(image: frame)
        case .video:
            _ = try landmarker.detect(videoFrame: frame, timestampInMilliseconds: 0)
            _ = try landmarker.detect(videoFrame: frame, timestampInMilliseconds: 40)
        case .liveStream:
            try landmarker.detectAsync(image: frame, timestampInMilliseconds: 0)
            try landmarker.detectAsync(image: frame, timestampInMilliseconds: 40)
            if closeLiveStream { landmarker.close() }
        }
    }

    /// Image and video mode, and live stream after `close()`: freed when the scope ends. Live
    /// stream without `close()`: a result being delivered holds the landmarker until the delegate
    /// returns, so it is freed once the queue is idle. The delegate is never kept alive either.
    @Test(arguments: [(RunningMode.image, false), (.video, false), (.liveStream, true), (.liveStream, false)])
    func poseLandmarkerIsFreedAfterItsLastUse(mode: RunningMode, closeLiveStream: Bool) throws {
        let frame = try Self.clipFrame()
        weak var weakLandmarker: PoseLandmarker?
        weak var weakDelegate: PoseLiveStreamLog?
        do {
            let delegate = mode == .liveStream ? PoseLiveStreamLog() : nil
            let landmarker = try LandmarkerStressTests.poseLandmarker(mode, delegate: delegate)
            weakLandmarker = landmarker
            weakDelegate = delegate
            try Self.use(landmarker, mode: mode, frame: frame, closeLiveStream: closeLiveStream)
            if closeLiveStream { #expect(delegate?.deliveries.map(\.timestamp) == [0, 40]) }
        }
        if mode == .liveStream && !closeLiveStream {
            #expect(Self.eventually { weakLandmarker == nil }, "the \(mode) landmarker was never freed")
            #expect(Self.eventually { weakDelegate == nil }, "the delegate was kept alive")
        } else {
            #expect(weakLandmarker == nil, "the \(mode) landmarker outlived its last use")
            #expect(weakDelegate == nil, "the delegate was kept alive")
        }
    }

    @Test(arguments: [(RunningMode.image, false), (.video, false), (.liveStream, true), (.liveStream, false)])
    func handLandmarkerIsFreedAfterItsLastUse(mode: RunningMode, closeLiveStream: Bool) throws {
        let frame = try Self.clipFrame()
        weak var weakLandmarker: HandLandmarker?
        weak var weakDelegate: LiveStreamRecorder?
        do {
            let delegate = mode == .liveStream ? LiveStreamRecorder() : nil
            let options = HandLandmarkerOptions()
            options.baseOptions.modelAssetPath = HandLandmarkerAPITests.fullBundle
            options.baseOptions.numThreads = 1
            options.runningMode = mode
            options.handLandmarkerLiveStreamDelegate = delegate
            let landmarker = try HandLandmarker(options: options)
            weakLandmarker = landmarker
            weakDelegate = delegate
            try Self.use(landmarker, mode: mode, frame: frame, closeLiveStream: closeLiveStream)
            if closeLiveStream { #expect(delegate?.received.map(\.timestamp) == [0, 40]) }
        }
        if mode == .liveStream && !closeLiveStream {
            #expect(Self.eventually { weakLandmarker == nil }, "the \(mode) landmarker was never freed")
            #expect(Self.eventually { weakDelegate == nil }, "the delegate was kept alive")
        } else {
            #expect(weakLandmarker == nil, "the \(mode) landmarker outlived its last use")
            #expect(weakDelegate == nil, "the delegate was kept alive")
        }
    }
}
