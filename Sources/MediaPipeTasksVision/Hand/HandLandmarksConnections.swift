/// The hand skeleton used to draw landmarks (on iOS: the `HandLandmarker.hand*Connections`
/// class properties).
///
/// Thread safety: a namespace of stateless functions of their arguments; safe to call from any
/// number of threads at once.
public enum HandLandmarksConnections {
    /// The 6 palm edges: wrist to the thumb and index bases, across the finger bases, and
    /// wrist to the pinky base.
    public static let handPalmConnections: [Connection] = [
        .init(start: 0, end: 1), .init(start: 0, end: 5), .init(start: 9, end: 13),
        .init(start: 13, end: 17), .init(start: 5, end: 9), .init(start: 0, end: 17),
    ]

    /// The 3 thumb edges, base to tip.
    public static let handThumbConnections: [Connection] = fingerChain(from: 1)

    /// The 3 index-finger edges, base to tip.
    public static let handIndexFingerConnections: [Connection] = fingerChain(from: 5)

    /// The 3 middle-finger edges, base to tip.
    public static let handMiddleFingerConnections: [Connection] = fingerChain(from: 9)

    /// The 3 ring-finger edges, base to tip.
    public static let handRingFingerConnections: [Connection] = fingerChain(from: 13)

    /// The 3 pinky edges, base to tip.
    public static let handPinkyConnections: [Connection] = fingerChain(from: 17)

    /// All 21 edges: palm, thumb, index, middle, ring, pinky.
    public static let handConnections: [Connection] =
        handPalmConnections + handThumbConnections + handIndexFingerConnections
        + handMiddleFingerConnections + handRingFingerConnections + handPinkyConnections

    /// The edges (b, b+1), (b+1, b+2), (b+2, b+3) of the finger whose first landmark is `base`.
    private static func fingerChain(from base: Int) -> [Connection] {
        (base..<(base + 3)).map { Connection(start: $0, end: $0 + 1) }
    }
}
