/// A 5×7 pixel bitmap font covering hand labels: "Left", "Right", digits, '.', ':' and ' '.
///
/// Each glyph is 7 rows, top to bottom; in each row bit 4 is the leftmost of the 5 columns.
/// Characters outside the table are drawn as a hollow box.
enum BitmapFont {
    static let glyphWidth = 5
    static let glyphHeight = 7
    /// Blank columns between two glyphs.
    static let spacing = 1

    private static let glyphs: [Character: [UInt8]] = [
        "0": [0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110],
        "1": [0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110],
        "2": [0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111],
        "3": [0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110],
        "4": [0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010],
        "5": [0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110],
        "6": [0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110],
        "7": [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000],
        "8": [0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110],
        "9": [0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100],
        ".": [0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b01100, 0b01100],
        ":": [0b00000, 0b01100, 0b01100, 0b00000, 0b01100, 0b01100, 0b00000],
        " ": [0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000],
        "L": [0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b11111],
        "R": [0b11110, 0b10001, 0b10001, 0b11110, 0b10100, 0b10010, 0b10001],
        "e": [0b00000, 0b00000, 0b01110, 0b10001, 0b11111, 0b10000, 0b01110],
        "f": [0b00110, 0b01001, 0b01000, 0b11100, 0b01000, 0b01000, 0b01000],
        "g": [0b00000, 0b01111, 0b10001, 0b10001, 0b01111, 0b00001, 0b01110],
        "h": [0b10000, 0b10000, 0b10110, 0b11001, 0b10001, 0b10001, 0b10001],
        "i": [0b00100, 0b00000, 0b01100, 0b00100, 0b00100, 0b00100, 0b01110],
        "t": [0b01000, 0b01000, 0b11100, 0b01000, 0b01000, 0b01001, 0b00110],
    ]
    private static let unknownGlyph: [UInt8] = [0b11111, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b11111]

    /// Whether `character` has its own glyph (rather than the hollow box).
    static func hasGlyph(_ character: Character) -> Bool {
        glyphs[character] != nil
    }

    /// The size in pixels of `text` drawn at `scale` (each font pixel a `scale × scale` block).
    static func size(of text: String, scale: Int) -> (width: Int, height: Int) {
        let count = text.count
        let columns = count == 0 ? 0 : count * (glyphWidth + spacing) - spacing
        return (columns * scale, glyphHeight * scale)
    }

    /// Draws `text` with its top-left corner at pixel (`x`, `y`), clipped to the canvas.
    static func draw(_ text: String, x: Int, y: Int, scale: Int, color: DrawingColor, on canvas: inout Canvas) {
        var penX = x
        for character in text {
            let rows = glyphs[character] ?? unknownGlyph
            for (row, bits) in rows.enumerated() {
                for column in 0..<glyphWidth where bits & (0b10000 >> column) != 0 {
                    let left = penX + column * scale
                    let top = y + row * scale
                    canvas.fillRectangle(x0: left, y0: top, x1: left + scale, y1: top + scale, color: color)
                }
            }
            penX += (glyphWidth + spacing) * scale
        }
    }
}
