/// A ROI and the id of the track it continues (docs/PIPELINE.md, "Track ids"): a ROI built from
/// the previous frame's landmarks carries its track's id; a new detection has none until it
/// takes over a tracked ROI's id or, once it gives landmarks, gets a new one.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
struct TrackedRect: Sendable, Equatable {
    /// The ROI, normalized to the image.
    var rect: NormalizedRect
    /// The track's id; nil for a detection that starts no known track (yet).
    var trackId: Int?
}

/// Hands out track ids: 0, 1, 2, … in the order tracks start, never one twice.
///
/// Thread safety: a `Sendable` value; mutate one copy from one thread at a time.
struct TrackIdSource: Sendable {
    private var next = 0

    /// An id no earlier call returned.
    mutating func newId() -> Int {
        defer { next += 1 }
        return next
    }
}
