/// The pose skeleton used to draw landmarks (on iOS: `PoseLandmarker.poseLandmarks`).
///
/// Thread safety: a namespace of stateless functions of their arguments; safe to call from any
/// number of threads at once.
public enum PoseLandmarksConnections {
    /// The 35 edges between the 33 pose landmarks: face, arms and hands, torso, legs and feet.
    public static let poseLandmarks: [Connection] = [
        // Face: eyes to ears, and the mouth.
        .init(start: 0, end: 1), .init(start: 1, end: 2), .init(start: 2, end: 3), .init(start: 3, end: 7),
        .init(start: 0, end: 4), .init(start: 4, end: 5), .init(start: 5, end: 6), .init(start: 6, end: 8),
        .init(start: 9, end: 10),
        // Shoulders, left arm and hand.
        .init(start: 11, end: 12), .init(start: 11, end: 13), .init(start: 13, end: 15),
        .init(start: 15, end: 17), .init(start: 15, end: 19), .init(start: 15, end: 21),
        .init(start: 17, end: 19),
        // Right arm and hand.
        .init(start: 12, end: 14), .init(start: 14, end: 16), .init(start: 16, end: 18),
        .init(start: 16, end: 20), .init(start: 16, end: 22), .init(start: 18, end: 20),
        // Torso.
        .init(start: 11, end: 23), .init(start: 12, end: 24), .init(start: 23, end: 24),
        // Legs and feet.
        .init(start: 23, end: 25), .init(start: 24, end: 26), .init(start: 25, end: 27),
        .init(start: 26, end: 28), .init(start: 27, end: 29), .init(start: 28, end: 30),
        .init(start: 29, end: 31), .init(start: 30, end: 32), .init(start: 27, end: 31),
        .init(start: 28, end: 32),
    ]
}
