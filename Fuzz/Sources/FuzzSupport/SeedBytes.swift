/// Filler bytes for seeds.
public enum SeedBytes {
    /// `count` bytes of a deterministic pattern (a gradient with some texture).
    public static func pattern(_ count: Int, step: Int = 37) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 * step + ($0 >> 3) * 11) }
    }
}
