import FlatBufferReader
import TestSupport
import Testing

/// The FlexBuffer reader of custom operators' options: the real models' options, the test
/// encoder's maps, and hostile bytes (truncated, wrong types, offsets and sizes out of range,
/// random corruption), which must give a `ModelError` and never trap.
@Suite("FlexBuffer")
struct FlexBufferViewTests {
    /// face_landmark_with_attention's TransformTensorBilinear options (operator 195), as stored:
    /// 1-byte slots, `{"output_height": 16, "output_width": 16}`.
    static let transformOptions = bytes(
        "6f75747075745f686569676874006f75747075745f776964746800021c0f02010210100404042401")

    /// face_landmark_with_attention's first Landmarks2TransformMatrix options (operator 192,
    /// the lips): 2-byte subset indices, 4-byte map slots.
    static let lipsOptions = bytes(
        "6c6566745f726f746174696f6e5f696478006f75747075745f686569676874006f75747075745f77696474680072696768745f726f7461"
            + "74696f6e5f696478007363616c655f78007363616c655f79007375627365745f696478730050003d0092005b00b500540011003a0195"
            + "01410177012301b90028002700250000000b010d010e0199014e005f005800b20057000e003d0192013e0144013401bf005000510052"
            + "000d003801370136019f014c004d005a00b400550010003b019401400133013201b8004a00490048000b002e012f01300198013e0060"
            + "005900b30056000f003c0193013f0145012401b7002a00290026000c000c010f01100197017461726765745f726f746174696f6e5f72"
            + "616469616e7300080018010801fc00f100e000da00d40028001000000002000000080000003d0000001000000010000000230100000000"
            + "c03f0000c03fee00000000000000060606060e0e2d0e282601")

    static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }

    static func map(_ bytes: [UInt8]) throws -> FlexBufferMap {
        try FlexBufferView(bytes, location: "test").rootMap()
    }

    /// Reads every key of `map` in every way, as an operator might: each read gives a value,
    /// nil or a `ModelError`, never anything else.
    static func readEverything(_ map: FlexBufferMap) {
        let keys = (try? map.keyNames()) ?? []
        for key in keys + ["absent"] {
            for read in [{ _ = try map.int32(key) }, { _ = try map.float(key) }, { _ = try map.int32s(key) }] {
                do { try read() } catch is ModelError {} catch { Issue.record("\(key): \(error) is not a ModelError") }
            }
        }
    }

    @Test func readsTheModelsOptions() throws {
        let transform = try Self.map(Self.transformOptions)
        #expect(try transform.keyNames() == ["output_height", "output_width"])
        #expect(try transform.int32("output_height") == 16)
        #expect(try transform.int32("output_width") == 16)
        #expect(try transform.int32("scale_x") == nil)

        let lips = try Self.map(Self.lipsOptions)
        #expect(try lips.keyNames() == [
            "left_rotation_idx", "output_height", "output_width", "right_rotation_idx", "scale_x", "scale_y",
            "subset_idxs", "target_rotation_radians",
        ])
        #expect(try lips.int32("left_rotation_idx") == 61)
        #expect(try lips.int32("right_rotation_idx") == 291)
        #expect(try lips.float("scale_x") == 1.5)
        #expect(try lips.float("target_rotation_radians") == 0)
        let subset = try #require(try lips.int32s("subset_idxs"))
        #expect(subset.count == 80)
        #expect(Array(subset.prefix(5)) == [61, 146, 91, 181, 84])
        #expect(subset.last == 407)
        // An int reads as a float, as FlatBuffers' reader converts it; a float is not an int.
        #expect(try lips.float("output_width") == 16)
        #expect(throws: ModelError.self) { try lips.int32("scale_x") }
    }

    @Test func readsTheEncodersMaps() throws {
        let map = try Self.map(FlexBufferEncoding.map([
            "b": .int(-7), "a": .float(-0.25), "c": .ints([3, -1, Int32.max]), "d": .string("bilinear"),
        ]))
        #expect(try map.keyNames() == ["a", "b", "c", "d"])
        #expect(try map.int32("b") == -7)
        #expect(try map.float("a") == -0.25)
        #expect(try map.int32s("c") == [3, -1, Int32.max])
        #expect(try map.int32("e") == nil)
        #expect(try Self.map(FlexBufferEncoding.map([:])).count == 0)
    }

    @Test func wrongTypesAreModelErrors() throws {
        let map = try Self.map(FlexBufferEncoding.map([
            "float": .float(1.5), "ints": .ints([1]), "string": .string("x"), "int": .int(2),
        ]))
        func expectWrongType(_ fragment: String, _ body: () throws -> Any?) {
            do {
                let value = try body()
                Issue.record("expected an error containing \"\(fragment)\", got \(String(describing: value))")
            } catch let error as ModelError {
                #expect("\(error)".contains(fragment), "\(error)")
            } catch {
                Issue.record("expected ModelError, got \(error)")
            }
        }
        expectWrongType("'float' is a float, expected an integer") { try map.int32("float") }
        expectWrongType("'ints' is a vector of ints, expected an integer") { try map.int32("ints") }
        expectWrongType("'string' is a string, expected a number") { try map.float("string") }
        expectWrongType("'int' is an int, expected a vector of integers") { try map.int32s("int") }
        expectWrongType("'string' is a string, expected a vector of integers") { try map.int32s("string") }
    }

    @Test func hostileHeadersAreModelErrors() throws {
        func expectError(_ bytes: [UInt8], _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
            do {
                let map = try Self.map(bytes)
                Issue.record("expected an error containing \"\(fragment)\", got a map of \(map.count)", sourceLocation: sourceLocation)
            } catch let error as ModelError {
                #expect("\(error)".contains(fragment), "\(error)", sourceLocation: sourceLocation)
            } catch {
                Issue.record("expected ModelError, got \(error)", sourceLocation: sourceLocation)
            }
        }
        expectError([], "0 bytes")
        expectError([0x28, 0x26], "2 bytes")
        expectError([0x00, 0x26, 0x03], "root width 3")
        expectError([0x00, 0x26, 0x04], "does not fit")
        // A root that is not a map.
        expectError([0x05, 0x04, 0x01], "the root is an int, expected a map")
        // A map offset pointing before the first byte.
        expectError([0x02, 0x24, 0x01], "before the start")
        // A map whose size is larger than the bytes.
        expectError([0x00, 0x01, 0xff, 0x00, 0x01, 0x24, 0x01], "the map size is 255")
        // A map whose keys width is not 1, 2, 4 or 8.
        expectError([0x00, 0x03, 0x00, 0x00, 0x01, 0x24, 0x01], "keys have width 3")
        // A map of one key, "kk", stored without its terminating zero: no zero follows it.
        var unterminated: [UInt8] = [
            0x6b, 0x6b,  // the key's bytes
            0x01, 0x03,  // the keys vector: size 1, an offset 3 bytes back to the key
            0x01, 0x01, 0x01,  // the map: keys 1 byte back, keys 1 byte wide, size 1
            0x05, 0x04,  // the value, int 5, and its packed type (int)
            0x02, 0x24, 0x01,  // the root: 2 bytes back, a map of 1-byte slots, 1 byte wide
        ]
        let map = try Self.map(unterminated)
        #expect(throws: ModelError.self) { try map.keyNames() }
        #expect(throws: ModelError.self) { try map.int32("kk") }
        unterminated[1] = 0  // now the key "k"
        #expect(try Self.map(unterminated).int32("k") == 5)
    }

    @Test func hostileValuesAreModelErrors() throws {
        // A vector whose size is far larger than the bytes: no allocation of that size.
        var huge = FlexBufferEncoding.map(["v": .ints([1, 2])])
        // The encoder writes the key "v\0", pads to 4 bytes, then the vector's 4-byte size.
        huge.replaceSubrange(4..<8, with: [0xff, 0xff, 0xff, 0x7f])
        #expect(throws: ModelError.self) { try Self.map(huge).int32s("v") }
        // An integer outside int32: the one value of a map turned into a uint of 2^32 - 1.
        var wide = FlexBufferEncoding.map(["i": .int(0)])
        let root = wide.count - 6  // a 4-byte offset, then the packed type and the root width
        let values = root - Int(wide[root])
        wide[values + 4] = 2 << 2 | 2  // the value's packed type: uint, 4 bytes
        wide.replaceSubrange(values..<(values + 4), with: [0xff, 0xff, 0xff, 0xff])
        #expect(throws: ModelError.self) { try Self.map(wide).int32("i") }
        #expect(throws: ModelError.self) { try Self.map(wide).float("i") }
    }

    @Test func everyPrefixIsReadOrRefused() {
        for original in [Self.transformOptions, Self.lipsOptions] {
            for length in 0..<original.count {
                do {
                    Self.readEverything(try Self.map(Array(original.prefix(length))))
                } catch is ModelError {
                } catch {
                    Issue.record("prefix \(length): \(error) is not a ModelError")
                }
            }
        }
    }

    @Test func corruptedBytesAreReadOrRefused() {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for original in [Self.transformOptions, Self.lipsOptions] {
            for _ in 0..<2000 {
                var bytes = original
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    let index = Int.random(in: bytes.indices, using: &rng)
                    bytes[index] = UInt8.random(in: 0...255, using: &rng)
                }
                do {
                    Self.readEverything(try Self.map(bytes))
                } catch is ModelError {
                } catch {
                    Issue.record("\(error) is not a ModelError, seed \(seed)")
                }
            }
        }
    }
}
