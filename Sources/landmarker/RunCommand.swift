import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Inference

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a model on raw float32 input and write each output as raw float32.",
        discussion: """
            The input file holds little-endian float32 values in the input's shape (NHWC).
            Output k is written to DIR/<k>_<name>.bin; a JSON summary goes to stdout.
            """)

    @Argument(help: "A .tflite file, or a model name looked up in the model folders.")
    var model: String

    @Option(help: "Raw little-endian float32 input file.")
    var input: String

    @Option(help: "Folder for the outputs (created if missing).")
    var outputDir: String

    @Option(parsing: .unconditional, help: "Threads for the fast kernels.")
    var threads = 1

    @Flag(help: "Run the plain reference kernels only.")
    var reference = false

    @Flag(help: "Run 1×1 convolutions with mostly-zero filters as dense ones, not as sparse kernels on channel-major tensors.")
    var dense = false

    func validate() throws {
        guard threads >= 1 && threads <= 256 else {
            throw ValidationError("--threads must be between 1 and 256")
        }
    }

    func run() throws {
        try OutputPlan.checkWritableFolder(outputDir, option: "--output-dir \(outputDir)")
        let path = try ModelLocation.resolve(model)
        do {
            try run(modelAt: path)
        } catch let error as InterpreterError {
            throw CommandFailure("\(path): \(error)")
        }
    }

    /// Runs the model at `path` on the input and writes its outputs and the summary.
    private func run(modelAt path: String) throws {
        let interpreter = try Interpreter(
            contentsOfFile: path,
            options: .init(
                threadCount: threads, mode: reference ? .reference : .fast, usesSparseKernels: !dense,
                weightCache: .standard))
        guard let inputDescription = interpreter.inputs.first else {
            throw CommandFailure("\(path): the model has no input")
        }
        let bytes = try readFile(input)
        let expectedBytes = inputDescription.shape.elementCount * 4
        guard bytes.count == expectedBytes else {
            throw CommandFailure(
                "\(input): expected \(expectedBytes) bytes (\(inputDescription.shape) float32), got \(bytes.count)")
        }
        try interpreter.withInputBuffer(at: 0) { buffer in
            for i in buffer.indices {
                let bits = UInt32(bytes[4 * i]) | UInt32(bytes[4 * i + 1]) << 8
                    | UInt32(bytes[4 * i + 2]) << 16 | UInt32(bytes[4 * i + 3]) << 24
                buffer[i] = Float(bitPattern: bits)
            }
        }
        let clock = ContinuousClock()
        let elapsed = clock.measure { interpreter.invoke() }

        var written: [RunReport.Output] = []
        for (k, output) in interpreter.outputs.enumerated() {
            let file = "\(outputDir)/\(k)_\(output.name.replacing("/", with: "_")).bin"
            let data = try interpreter.withOutputBuffer(at: k) { values in
                var bytes: [UInt8] = []
                bytes.reserveCapacity(values.count * 4)
                for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
                return (bytes, values.min() ?? 0, values.max() ?? 0)
            }
            try OutputFile.write(data.0, to: file)
            written.append(.init(index: k, name: output.name, shape: output.shape.dimensions,
                                 file: file, min: data.1, max: data.2))
        }
        let report = RunReport(
            model: path, mode: reference ? "reference" : "fast", threads: threads,
            milliseconds: Double(elapsed.components.attoseconds) * 1e-15 + Double(elapsed.components.seconds) * 1e3,
            outputs: written)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(report), as: UTF8.self))
    }

    private func readFile(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("\(path): cannot read the file")
        }
        return [UInt8](data)
    }
}

/// The JSON summary of `landmarker run`.
struct RunReport: Encodable {
    struct Output: Encodable {
        let index: Int
        let name: String
        let shape: [Int]
        let file: String
        let min: Float
        let max: Float
    }
    let model: String
    let mode: String
    let threads: Int
    let milliseconds: Double
    let outputs: [Output]
}
