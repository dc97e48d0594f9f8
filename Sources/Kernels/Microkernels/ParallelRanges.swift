/// Elements a memory-bound chunk of work should at least touch before it is
/// worth handing to another thread (16 KiB of floats: far more than the cost
/// of claiming a chunk). Small enough that the PADs and pools between
/// convolutions go to every thread, each copying the rows that the layers
/// either side compute on its core: at 8 times this, face_detection_short_range
/// at two threads took 7 % longer on a Zen 5 (`Benchmarks/JOURNAL.md`, "Rows
/// before panels").
let memoryBoundTaskGrain = 4_096

/// The number of rows of `rowLength` elements a memory-bound chunk of work
/// should at least take (at least one).
@inline(__always)
func minimumRowsPerTask(rowLength: Int) -> Int {
    max(1, memoryBoundTaskGrain / max(1, rowLength))
}
