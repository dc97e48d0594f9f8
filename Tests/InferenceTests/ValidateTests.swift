import Foundation
import Inference
import TestSupport
import Testing

/// `Interpreter.validate` reports, for each real model, the summary that a
/// full load reports: the same operators, parameters, multiply-accumulates
/// and arena, though it neither decodes nor packs the weights.
@Suite struct ValidateTests {
    @Test(arguments: ModelGoldenTests.allModels)
    func validateAgreesWithLoad(model: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.model(model))))
        let loaded = try Interpreter(bytes: bytes, options: .init(mode: .reference)).summary
        let validated = try Interpreter.validate(bytes: bytes)
        #expect(validated.operatorHistogram == loaded.operatorHistogram)
        #expect(validated.preparedOperatorCount == loaded.preparedOperatorCount)
        #expect(validated.parameterCount == loaded.parameterCount)
        #expect(validated.multiplyAccumulates == loaded.multiplyAccumulates)
        #expect(validated.arenaBytes == loaded.arenaBytes)
        #expect(loaded.parameterCount > 0 && loaded.multiplyAccumulates > 0)
    }
}
