import ArgumentParser

/// A user-facing failure with a message for stderr.
struct CommandFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// Runs a subcommand's work and returns its result; any error is printed to stderr as
/// `landmarker: <message>` and the process exits with status 1.
@discardableResult
func reportingFailures<Result>(_ body: () throws -> Result) throws -> Result {
    do {
        return try body()
    } catch let failure as CommandFailure {
        printError("landmarker: \(failure.message)")
        throw ExitCode.failure
    } catch let exit as ExitCode {
        throw exit
    } catch {
        printError("landmarker: \(error)")
        throw ExitCode.failure
    }
}
