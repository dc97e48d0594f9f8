import ImageIO

/// An RGB8 colour.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct DrawingColor: Sendable, Hashable {
    package var red: UInt8
    package var green: UInt8
    package var blue: UInt8

    package init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }
}

/// A mutable copy of an `RGBImage`'s pixels with clipped raster primitives.
///
/// Coordinates are in pixel-index space: pixel (i, j) is the unit square centred on (i, j).
/// Every primitive clips to the image and ignores non-finite coordinates, so no input can
/// write out of bounds, trap on an `Int` conversion or loop for long.
struct Canvas {
    let width: Int
    let height: Int
    private var pixels: [UInt8]

    init(_ image: RGBImage) {
        width = image.width
        height = image.height
        pixels = image.pixels
    }

    /// The drawn image, the same size as the source.
    func image() -> RGBImage {
        do {
            return try RGBImage(width: width, height: height, pixels: pixels)
        } catch {
            preconditionFailure("a canvas keeps its source image's size: \(error)")
        }
    }

    /// Fills pixels `x0..<x1` × `y0..<y1`, clipped to the image.
    mutating func fillRectangle(x0: Int, y0: Int, x1: Int, y1: Int, color: DrawingColor) {
        let left = max(x0, 0)
        let right = min(x1, width)
        let top = max(y0, 0)
        let bottom = min(y1, height)
        guard left < right, top < bottom else { return }
        for y in top..<bottom {
            fillRow(y, from: left, through: right - 1, color: color)
        }
    }

    /// Fills every pixel whose centre lies within `radius` of (`centerX`, `centerY`).
    mutating func fillDisc(centerX: Double, centerY: Double, radius: Double, color: DrawingColor) {
        guard centerX.isFinite, centerY.isFinite, radius.isFinite, radius >= 0 else { return }
        guard let rows = indexRange(from: centerY - radius, to: centerY + radius, count: height) else { return }
        for y in rows {
            let dy = Double(y) - centerY
            let halfWidth = (radius * radius - dy * dy).squareRoot()
            guard halfWidth.isFinite,
                  let columns = indexRange(from: centerX - halfWidth, to: centerX + halfWidth, count: width)
            else { continue }
            fillRow(y, from: columns.lowerBound, through: columns.upperBound, color: color)
        }
    }

    /// Strokes the segment from `start` to `end` with round caps: every pixel whose centre lies
    /// within `radius` of the segment (up to one pixel's sampling along it).
    mutating func strokeSegment(
        from start: (x: Double, y: Double), to end: (x: Double, y: Double), radius: Double, color: DrawingColor
    ) {
        guard start.x.isFinite, start.y.isFinite, end.x.isFinite, end.y.isFinite,
              radius.isFinite, radius >= 0 else { return }
        // Clip to the image grown by the pen, so the stamping loop below stays short.
        let margin = radius + 1
        let bounds = (minX: -margin, minY: -margin, maxX: Double(width - 1) + margin, maxY: Double(height - 1) + margin)
        guard let clipped = Self.clip(start, end, to: bounds) else { return }
        // Rounding in the clip can leave points slightly outside for huge inputs: clamp them.
        let a = (x: min(max(clipped.0.x, bounds.minX), bounds.maxX), y: min(max(clipped.0.y, bounds.minY), bounds.maxY))
        let b = (x: min(max(clipped.1.x, bounds.minX), bounds.maxX), y: min(max(clipped.1.y, bounds.minY), bounds.maxY))
        let length = max(abs(b.x - a.x), abs(b.y - a.y))
        // length ≤ the grown image's larger side, so the step count is small.
        let steps = Int(length.rounded(.up))
        for step in 0...steps {
            let t = steps == 0 ? 0 : Double(step) / Double(steps)
            fillDisc(centerX: a.x + (b.x - a.x) * t, centerY: a.y + (b.y - a.y) * t, radius: radius, color: color)
        }
    }

    private mutating func fillRow(_ y: Int, from left: Int, through right: Int, color: DrawingColor) {
        // Callers clip: 0 ≤ left ≤ right < width and 0 ≤ y < height.
        var offset = 3 * (y * width + left)
        for _ in left...right {
            pixels[offset] = color.red
            pixels[offset + 1] = color.green
            pixels[offset + 2] = color.blue
            offset += 3
        }
    }

    /// The integer indices in [`low`, `high`] ∩ [0, `count` − 1], or `nil` if none. Clamps in
    /// floating point before converting, so huge values cannot trap.
    private func indexRange(from low: Double, to high: Double, count: Int) -> ClosedRange<Int>? {
        let first = max(low.rounded(.up), 0)
        let last = min(high.rounded(.down), Double(count - 1))
        guard first <= last else { return nil }
        return Int(first)...Int(last)
    }

    /// Liang–Barsky clipping of a segment to an axis-aligned rectangle; `nil` if it misses.
    /// The coordinate cut by an edge is set to that edge exactly, so a far-away horizontal or
    /// vertical segment lands on the right row or column despite rounding.
    private static func clip(
        _ start: (x: Double, y: Double), _ end: (x: Double, y: Double),
        to bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double)
    ) -> ((x: Double, y: Double), (x: Double, y: Double))? {
        let dx = end.x - start.x
        let dy = end.y - start.y
        // (direction, distance to the edge along it, whether it bounds x, the edge's value)
        let edges = [
            (-dx, start.x - bounds.minX, true, bounds.minX), (dx, bounds.maxX - start.x, true, bounds.maxX),
            (-dy, start.y - bounds.minY, false, bounds.minY), (dy, bounds.maxY - start.y, false, bounds.maxY),
        ]
        var enter = (t: 0.0, edge: -1)
        var leave = (t: 1.0, edge: -1)
        for (index, (direction, distance, _, _)) in edges.enumerated() {
            if direction == 0 {
                if distance < 0 { return nil }
                continue
            }
            let t = distance / direction
            if direction < 0, t > enter.t {
                enter = (t, index)
            } else if direction > 0, t < leave.t {
                leave = (t, index)
            }
        }
        guard enter.t <= leave.t, enter.t.isFinite, leave.t.isFinite else { return nil }
        func point(at cut: (t: Double, edge: Int)) -> (x: Double, y: Double) {
            var result = (x: start.x + dx * cut.t, y: start.y + dy * cut.t)
            if cut.edge >= 0 {
                let (_, _, boundsX, value) = edges[cut.edge]
                if boundsX { result.x = value } else { result.y = value }
            }
            return result
        }
        return (point(at: enter), point(at: leave))
    }
}
