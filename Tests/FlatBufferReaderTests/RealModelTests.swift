import Foundation
import Testing
import FlatBufferReader

/// What the fixtures manifest says about one model.
private struct ManifestModel {
    struct TensorFact {
        let name: String
        let index: Int
        let shape: [Int32]
    }

    let bytes: Int
    let input: TensorFact
    let outputs: [TensorFact]
    let operatorHistogram: [String: Int]
    let operatorCount: Int

    static func load(_ name: String) -> ManifestModel? {
        guard let data = TestPaths.fixture("tensors/manifest.json") else { return nil }
        do {
            guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let models = root["models"] as? [String: Any],
                  let entry = models[name] as? [String: Any],
                  let model = entry["model"] as? [String: Any],
                  let bytes = model["bytes"] as? Int,
                  let input = model["input"] as? [String: Any],
                  let outputs = model["outputs"] as? [[String: Any]],
                  let histogram = model["ops_builtin_ref"] as? [String: Int],
                  let operatorCount = model["num_ops"] as? Int
            else {
                Issue.record("manifest.json has no complete entry for \(name)")
                return nil
            }
            func fact(_ object: [String: Any]) -> TensorFact? {
                guard let name = object["name"] as? String, let index = object["index"] as? Int,
                      let shape = object["shape"] as? [Int] else { return nil }
                return TensorFact(name: name, index: index, shape: shape.map { Int32($0) })
            }
            guard let inputFact = fact(input) else { return nil }
            return ManifestModel(
                bytes: bytes, input: inputFact, outputs: outputs.compactMap(fact), operatorHistogram: histogram,
                operatorCount: operatorCount)
        } catch {
            Issue.record("manifest.json does not parse: \(error)")
            return nil
        }
    }
}

@Suite("Real MediaPipe models")
struct RealModelTests {
    @Test("loads through mmap and from bytes, matching the fixtures manifest", arguments: TestPaths.modelNames)
    func loadsAndMatchesManifest(name: String) throws {
        guard let path = TestPaths.model(name), let manifest = ManifestModel.load(name) else { return }
        let mapped = try TFLiteModel(contentsOfFile: path)
        #expect(mapped.bytes.count == manifest.bytes)
        #expect(mapped.bytes.path == path)

        guard let bytes = TestPaths.modelBytes(name) else { return }
        let owned = try TFLiteModel(bytes: ModelBytes(bytes: bytes))
        #expect(owned.subgraphs == mapped.subgraphs)
        #expect(owned.operatorCodes == mapped.operatorCodes)
        #expect(owned.buffers == mapped.buffers)

        #expect(mapped.version == 3)
        let graph = try #require(mapped.subgraphs.first)
        #expect(graph.inputs == [manifest.input.index])
        let input = graph.tensors[manifest.input.index]
        #expect(input.name == manifest.input.name)
        #expect(input.shape == manifest.input.shape)
        #expect(input.type == .float32)
        #expect(!mapped.isConstant(input))

        #expect(graph.outputs == manifest.outputs.map(\.index))
        for fact in manifest.outputs {
            let tensor = graph.tensors[fact.index]
            #expect(tensor.name == fact.name)
            #expect(tensor.shape == fact.shape)
            #expect(tensor.type == .float32)
        }

        #expect(graph.operators.count == manifest.operatorCount)
        var histogram: [String: Int] = [:]
        for op in graph.operators {
            histogram[mapped.operatorCodes[op.opcodeIndex].builtin.description, default: 0] += 1
        }
        #expect(histogram == manifest.operatorHistogram)
    }

    @Test("decodes options and constant buffers consistently", arguments: TestPaths.allModelNames)
    func optionsAndBuffers(name: String) throws {
        guard let path = TestPaths.model(name) else { return }
        let model = try TFLiteModel(contentsOfFile: path)
        let graph = model.subgraphs[0]
        for (index, op) in graph.operators.enumerated() {
            let builtin = model.operatorCodes[op.opcodeIndex].builtin
            // The table each op carries, if any, is its own, and its geometry is positive.
            let table = model.optionsTable(of: op, location: "operator \(index) (\(builtin)) options")
            let expectedType: [BuiltinOperator: UInt8] = [
                .conv2D: BuiltinOptionsType.conv2D, .depthwiseConv2D: BuiltinOptionsType.depthwiseConv2D,
                .maxPool2D: BuiltinOptionsType.pool2D, .add: BuiltinOptionsType.add,
                .concatenation: BuiltinOptionsType.concatenation, .reshape: BuiltinOptionsType.reshape,
                .dequantize: BuiltinOptionsType.dequantize, .densify: BuiltinOptionsType.densify,
                .fullyConnected: BuiltinOptionsType.fullyConnected, .pad: BuiltinOptionsType.pad,
                .resizeBilinear: BuiltinOptionsType.resizeBilinear, .depthToSpace: BuiltinOptionsType.depthToSpace,
                .mean: BuiltinOptionsType.reducer, .logistic: 0, .prelu: 0, .relu: 0,
                .stridedSlice: BuiltinOptionsType.stridedSlice, .mul: BuiltinOptionsType.mul, .custom: 0,
            ]
            guard let expected = expectedType[builtin] else {
                Issue.record("operator \(index) (\(builtin)) is not an op of these models")
                continue
            }
            #expect(op.optionsType == 0 || op.optionsType == expected, "operator \(index) (\(builtin))")
            switch builtin {
            case .conv2D:
                typealias F = BuiltinOptionsFields.Conv2D
                #expect(try [F.strideW, F.strideH, F.dilationWFactor, F.dilationHFactor].allSatisfy { try table.value($0) >= 1 })
            case .depthwiseConv2D:
                typealias F = BuiltinOptionsFields.DepthwiseConv2D
                #expect(try [F.strideW, F.strideH].allSatisfy { try table.value($0) >= 1 }, "operator \(index)")
            case .maxPool2D:
                typealias F = BuiltinOptionsFields.Pool2D
                #expect(try [F.filterWidth, F.filterHeight].allSatisfy { try table.value($0) >= 1 }, "operator \(index)")
            default:
                break
            }
        }
        // Every DEQUANTIZE reads fp16 weights: a constant whose buffer holds exactly its values,
        // or the output of a DENSIFY of such a constant. Every model but hand_recrop (float32
        // weights) has them.
        var dequantized = 0
        for (index, op) in graph.operators.enumerated() where model.operatorCodes[op.opcodeIndex].builtin == .dequantize {
            var source = graph.tensors[op.inputs[0]]
            if let producer = graph.operators.first(where: { $0.outputs.contains(op.inputs[0]) }) {
                #expect(model.operatorCodes[producer.opcodeIndex].builtin == .densify, "operator \(index)")
                source = graph.tensors[producer.inputs[0]]
            }
            #expect(source.type == .float16, "operator \(index)")
            let constant = model.isConstant(source)
            #expect(constant, "operator \(index)")
            let byteCount = model.withBufferBytes(source.buffer) { $0.count }
            let values = source.sparsity?.valueCount ?? source.elementCount
            #expect(byteCount == values * 2, "operator \(index)")
            dequantized += 1
        }
        #expect((dequantized > 0) == (name != "hand_recrop"), "\(dequantized) DEQUANTIZE operators")
    }

    @Test("face_landmark_with_attention's custom operators and their FlexBuffer options")
    func customOperators() throws {
        guard let path = TestPaths.model("face_landmark_with_attention") else { return }
        let model = try TFLiteModel(contentsOfFile: path)
        let graph = model.subgraphs[0]
        var found: [String] = []
        for (index, op) in graph.operators.enumerated() where model.operatorCodes[op.opcodeIndex].builtin == .custom {
            let code = model.operatorCodes[op.opcodeIndex]
            #expect(code.version == 2, "operator \(index)")
            #expect(op.optionsType == 0, "operator \(index)")
            found.append(code.name)
            let options = try model.optionsTable(of: op, location: "operator \(index)").customOptions()
            switch code.name {
            case "Landmarks2TransformMatrix":
                let map = try #require(options)
                #expect(try [map.int32("output_height"), map.int32("output_width")] == [16, 16])
                #expect(try [map.float("scale_x"), map.float("scale_y")] == [1.5, 1.5])
                #expect(try map.float("target_rotation_radians") == 0)
                let subset = try #require(try map.int32s("subset_idxs"))
                #expect(subset.allSatisfy { (0..<468).contains($0) })
                found[found.count - 1] += " \(subset.count)"
            case "TransformTensorBilinear":
                let map = try #require(options)
                #expect(try map.keyNames() == ["output_height", "output_width"])
                #expect(try [map.int32("output_height"), map.int32("output_width")] == [16, 16])
            default:
                #expect(options == nil, "operator \(index) (\(code.name))")
            }
        }
        // Lips (80 landmarks), then the two eyes (71 each).
        #expect(found == [
            "Landmarks2TransformMatrix 80", "Landmarks2TransformMatrix 71", "Landmarks2TransformMatrix 71",
            "TransformTensorBilinear", "TransformTensorBilinear", "TransformTensorBilinear",
            "TransformLandmarks", "TransformLandmarks", "TransformLandmarks", "TransformLandmarks", "TransformLandmarks",
        ])
    }

    @Test("pose_detection's sparse weights describe CSR matrices that fit their buffers")
    func sparseWeights() throws {
        guard let path = TestPaths.model("pose_detection") else { return }
        let model = try TFLiteModel(contentsOfFile: path)
        let graph = model.subgraphs[0]
        let densify = graph.operators.filter { model.operatorCodes[$0.opcodeIndex].builtin == .densify }
        #expect(densify.count == 38)
        for op in densify {
            let source = graph.tensors[op.inputs[0]]
            let output = graph.tensors[op.outputs[0]]
            let sparsity = try #require(source.sparsity, "DENSIFY input '\(source.name)' has no sparsity")
            #expect(source.shape == output.shape)
            #expect(sparsity.traversalOrder.count == source.shape.count)
            #expect(sparsity.dimensionMetadata.contains { $0.format == .sparseCSR })
            // Fewer stored values than dense elements, and the buffer holds exactly those values.
            #expect(sparsity.valueCount < source.elementCount)
            let byteCount = model.withBufferBytes(source.buffer) { $0.count }
            #expect(byteCount == sparsity.valueCount * source.type.byteSize!)
        }
    }

    @Test("a mapped pose_landmark_full loads quickly without copying weights")
    func loadTime() throws {
        guard let path = TestPaths.model("pose_landmark_full") else { return }
        let clock = ContinuousClock()
        var best = Duration.seconds(1000)
        var model: TFLiteModel?
        for _ in 0..<5 {
            let elapsed = try clock.measure { model = try TFLiteModel(contentsOfFile: path) }
            best = min(best, elapsed)
        }
        print("pose_landmark_full (\(model?.bytes.count ?? 0) bytes) loads in \(best)")
        // Weight bytes are reached through the mapping, not copies: buffer ranges lie in the file.
        let loaded = try #require(model)
        #expect(loaded.buffers.allSatisfy { $0.range.upperBound <= loaded.bytes.count })
    }
}
