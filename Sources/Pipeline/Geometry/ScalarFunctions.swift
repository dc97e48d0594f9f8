#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The logistic function `1 / (1 + e^(−x))`, evaluated in `Float` as MediaPipe does.
func sigmoid(_ x: Float) -> Float {
    1 / (1 + exp(-x))
}

/// Wraps an angle in radians into `[−π, π)`: `a − 2π·floor((a + π) / 2π)`.
///
/// The wrap is computed in `Double` (MediaPipe's constant π is a `double`) and rounded to
/// `Float` once at the end.
func normalizeRadians(_ angle: Float) -> Float {
    let a = Double(angle)
    return Float(a - 2 * Double.pi * (((a + Double.pi) / (2 * Double.pi)).rounded(.down)))
}

/// An angle given in degrees, converted to radians the way MediaPipe stores its rotation
/// targets: `Float(π · degrees / 180)` with π in `Double`.
///
/// Note that `Float.pi / 2` is *not* this value for 90°: `Float.pi` is rounded toward zero,
/// MediaPipe's `M_PI` converted to `float` is rounded to nearest.
func radians(fromDegrees degrees: Double) -> Float {
    Float(Double.pi * degrees / 180)
}
