/// How 8-bit Y′CbCr values map to RGB: the matrix (ITU-R BT.601 or BT.709) and the range.
///
/// Limited ("TV", "MPEG") range: Y′ 16…235 is black…white, Cb and Cr 16…240 around 128.
/// Full ("PC", "JPEG") range: all three use 0…255, chroma around 128. With Y′ and Cb, Cr scaled
/// to [0, 1] and [−½, ½]:
/// R = Y′ + 2(1 − Kr)·Cr, B = Y′ + 2(1 − Kb)·Cb, G = (Y′ − Kr·R − Kb·B)/(1 − Kr − Kb), with
/// Kr = 0.299, Kb = 0.114 (BT.601) or Kr = 0.2126, Kb = 0.0722 (BT.709).
///
/// Cameras and SD video use BT.601 limited; HD video (720p and up) usually BT.709 limited;
/// JPEG and MJPEG webcams BT.601 full. libyuv computes the formula in 6-bit fixed point with
/// its matrices `I601`, `JPEG` and `F709`; BT.709 limited-range samples are first expanded to
/// full range and converted with `F709`, since libyuv's own `H709` matrix caps its Cb → B
/// coefficient (`LimitedRangeExpansion`). Measured over every in-gamut Y′CbCr triple: within
/// 2 grey levels of the formula for the limited ranges, within 1 for the full ranges.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public enum YUVColorSpace: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// ITU-R BT.601, limited range: cameras, SD video, `ffmpeg -pix_fmt yuv420p` from RGB.
    case bt601Limited
    /// ITU-R BT.601, full range: JPEG / JFIF, MJPEG webcams.
    case bt601Full
    /// ITU-R BT.709, limited range: HD video.
    case bt709Limited
    /// ITU-R BT.709, full range.
    case bt709Full

    public var description: String {
        switch self {
        case .bt601Limited: return "BT.601 limited range"
        case .bt601Full: return "BT.601 full range"
        case .bt709Limited: return "BT.709 limited range"
        case .bt709Full: return "BT.709 full range"
        }
    }
}

/// How the chroma of a subsampled frame (4:2:0, 4:2:2) is brought to every pixel.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public enum YUVChromaUpsampling: Sendable, Hashable, CaseIterable {
    /// Interpolated: libyuv's bilinear 2× upsampler, weights ¾ and ¼ of the two nearest chroma
    /// samples in each subsampled direction (each chroma sample sited midway between the two
    /// luma samples it covers). Where the second sample would lie outside the plane (the first
    /// row and column; the last ones of an even size), and in the last column of an odd width,
    /// the nearest sample is used alone.
    case linear
    /// Replicated: each chroma sample is used for all the pixels it covers (2 × 2 for 4:2:0,
    /// 2 × 1 for 4:2:2), as `ffmpeg -pix_fmt rgb24` converts by default.
    case nearest
}
