/// Layouts of caller-supplied 8-bit pixel buffers accepted by ``MPImage``.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public enum PixelFormat: Sendable, Hashable, CaseIterable {
    /// 3 bytes per pixel: R, G, B.
    case rgb8
    /// 4 bytes per pixel: R, G, B, A. Alpha is dropped.
    case rgba8
    /// 4 bytes per pixel: B, G, R, A (e.g. `kCVPixelFormatType_32BGRA`). Alpha is dropped.
    case bgra8
    /// 1 byte per pixel: gray, replicated to R = G = B.
    case gray8

    /// Bytes per pixel.
    public var bytesPerPixel: Int {
        switch self {
        case .rgb8: return 3
        case .rgba8, .bgra8: return 4
        case .gray8: return 1
        }
    }
}
