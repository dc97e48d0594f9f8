@testable import Kernels
import Tensor
import Testing

/// `BroadcastRows` finds the broadcasts whose rows start at `row · step` in both operands, which
/// the fast element-wise kernels walk without dividing the row index; the others keep the
/// general walk. (That both walks match the reference is FastElementwiseTests' sweep.)
@Suite struct BroadcastRowsTests {
    static func rows(_ lhs: [Int], _ rhs: [Int]) throws -> BroadcastRows {
        BroadcastRows(try BinaryBroadcast(
            op: "TEST", lhs: TensorShape(lhs), rhs: TensorShape(rhs), maxBroadcastRank: 4))
    }

    @Test func aPerChannelOperandStepsByZeroAndTheOtherByARow() throws {
        let steps = try #require(try Self.rows([1, 48, 48, 64], [1, 1, 64]).affineRowSteps)
        #expect(steps.lhs == 64 && steps.rhs == 0)
    }

    @Test func anOperandRepeatedAlongTheRowStepsByOneElement() throws {
        // Rows of 5; the left operand gives each row one element.
        let steps = try #require(try Self.rows([3, 4, 1], [3, 4, 5]).affineRowSteps)
        #expect(steps.lhs == 1 && steps.rhs == 5)
    }

    @Test func crossedBroadcastsKeepTheGeneralWalk() throws {
        // Output [2, 3, 4]: the left operand repeats along the middle dimension only, the right
        // one along the first only, so neither row origin is a multiple of the row index.
        #expect(try Self.rows([2, 1, 4], [1, 3, 4]).affineRowSteps == nil)
        #expect(try Self.rows([1, 3, 4], [2, 1, 4]).affineRowSteps == nil)
    }
}
