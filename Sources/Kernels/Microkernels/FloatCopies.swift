import KernelTemplates

// Copies and fills of float buffers: the element-wise work of the layout operators and of the
// convolutions' gathers and bands.

/// Sets the floats of `destination` that the items own to +0, for
/// `ParallelRunner.forEach` over its element count.
struct ZeroFloatsWork: ParallelWork {
    let destination: UnsafeMutablePointer<Float>

    func run(_ items: Range<Int>, thread: Int) {
        zeroFloats(destination + items.lowerBound, count: items.count)
    }
}

/// Copies `count` floats from `source` to `destination` (non-overlapping).
@inline(__always)
func copyFloats(_ source: UnsafePointer<Float>, to destination: UnsafeMutablePointer<Float>, count: Int) {
    destination.update(from: source, count: count)
}

/// Sets `count` floats at `destination` to +0.
@inline(__always)
func zeroFloats(_ destination: UnsafeMutablePointer<Float>, count: Int) {
    destination.update(repeating: 0, count: count)
}

/// Copies `count` floats from `source` to `target` (non-overlapping) 16 at a time, then 8, then
/// one by one: for the short runs that gathers and padded bands copy pixel by pixel or row by
/// row (a few channels to a few hundred floats), which cost several times more as calls to
/// `memmove` (`copyFloats(_:to:count:)`).
@inline(__always)
func copyShortFloats(from source: UnsafePointer<Float>, to target: UnsafeMutablePointer<Float>, count: Int) {
    var i = 0
    while i + 16 <= count {
        UnsafeMutableRawPointer(target + i).storeBytes(
            of: UnsafeRawPointer(source + i).loadUnaligned(as: SIMD16<Float>.self), as: SIMD16<Float>.self)
        i += 16
    }
    if i + 8 <= count {
        storeVector8(loadVector8(source + i), target + i)
        i += 8
    }
    while i < count {
        target[i] = source[i]
        i += 1
    }
}
