/// The face mesh's contours, used to draw landmarks (on iOS: the `FaceLandmarker.*Connections`
/// class methods). Each contour is a chain of landmark indices of MediaPipe's face mesh
/// topology; "left" and "right" are the subject's.
///
/// Thread safety: a namespace of stateless values; safe to use from any number of threads at once.
public enum FaceLandmarksConnections {
    /// The 40 lip edges: outer lower and upper lip, inner lower and upper lip, corner to corner.
    public static let lipsConnections: [Connection] = chains([
        [61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291],
        [61, 185, 40, 39, 37, 0, 267, 269, 270, 409, 291],
        [78, 95, 88, 178, 87, 14, 317, 402, 318, 324, 308],
        [78, 191, 80, 81, 82, 13, 312, 311, 310, 415, 308],
    ])

    /// The 16 left-eye edges: upper and lower lid, outer to inner corner.
    public static let leftEyeConnections: [Connection] = chains([
        [263, 466, 388, 387, 386, 385, 384, 398, 362],
        [263, 249, 390, 373, 374, 380, 381, 382, 362],
    ])

    /// The 8 left-eyebrow edges: lower and upper edge.
    public static let leftEyebrowConnections: [Connection] = chains([
        [276, 283, 282, 295, 285],
        [300, 293, 334, 296, 336],
    ])

    /// The 4 left-iris edges, around the iris (landmarks 474–477; refined model only).
    public static let leftIrisConnections: [Connection] = chains([[474, 475, 476, 477, 474]])

    /// The 16 right-eye edges: lower and upper lid, outer to inner corner.
    public static let rightEyeConnections: [Connection] = chains([
        [33, 7, 163, 144, 145, 153, 154, 155, 133],
        [33, 246, 161, 160, 159, 158, 157, 173, 133],
    ])

    /// The 8 right-eyebrow edges: lower and upper edge.
    public static let rightEyebrowConnections: [Connection] = chains([
        [46, 53, 52, 65, 55],
        [70, 63, 105, 66, 107],
    ])

    /// The 4 right-iris edges, around the iris (landmarks 469–472; refined model only).
    public static let rightIrisConnections: [Connection] = chains([[469, 470, 471, 472, 469]])

    /// The 36 edges of the face's outline, clockwise from the top of the forehead.
    public static let faceOvalConnections: [Connection] = chains([[
        10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377,
        152, 148, 176, 149, 150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109, 10,
    ]])

    /// Lips, eyes, eyebrows and the face oval (124 edges; the irises are not included).
    public static let contoursConnections: [Connection] =
        lipsConnections + leftEyeConnections + leftEyebrowConnections + rightEyeConnections
        + rightEyebrowConnections + faceOvalConnections

    /// Both irises (8 edges).
    public static let irisConnections: [Connection] = leftIrisConnections + rightIrisConnections

    /// The consecutive pairs of each chain.
    private static func chains(_ chains: [[Int]]) -> [Connection] {
        chains.flatMap { chain in zip(chain, chain.dropFirst()).map { Connection(start: $0, end: $1) } }
    }
}
