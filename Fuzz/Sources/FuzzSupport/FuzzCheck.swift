import ImageIO

/// How one execution ended, printed when `$INPUT_FUZZER_REPORT` is set.
public enum Outcome: CustomStringConvertible {
    /// The parser accepted the input; the text says what it read.
    case parsed(String)
    /// The parser refused the input with a typed error.
    case refused(any Error & CustomStringConvertible)

    public var description: String {
        switch self {
        case .parsed(let summary): return "parsed: \(summary)"
        case .refused(let error): return "refused: \(error)"
        }
    }
}

/// Invariants the fuzzer checks on every success.
public enum FuzzCheck {
    /// Stops the process (a finding) with `message` unless `condition` holds.
    public static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError("fuzzer invariant broken: \(message())") }
    }

    /// Checks that `image` has a positive size and `width × height × 3` bytes.
    public static func requireConsistent(_ image: RGBImage, _ context: String) {
        require(image.width > 0 && image.height > 0 && image.pixels.count == image.width * image.height * 3,
                "\(context): inconsistent \(image.width)x\(image.height) image of \(image.pixels.count) bytes")
    }

    /// Checks that a thrown error describes itself (its message is what a user
    /// sees) and returns it as the execution's outcome.
    public static func refused(_ error: some Error & CustomStringConvertible) -> Outcome {
        require(!error.description.isEmpty, "empty message for \(error)")
        return .refused(error)
    }
}
