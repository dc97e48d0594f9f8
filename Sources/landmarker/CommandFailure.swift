import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A run that failed on some input (exit status 1), with the message for standard error.
struct CommandFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// The CLI's one rule for exit statuses and messages (docs/CLI.md, "Exit statuses"):
///
/// - **0**: success, help and `--version`.
/// - **64** (`EX_USAGE`): an option or a path refused before any work: ArgumentParser's parse
///   errors, and the `ValidationError`s the commands throw from `validate()` or at the start of
///   `run()` (before any input is read), printed as ArgumentParser prints them: `Error: MESSAGE`
///   and the subcommand's usage. An unknown option that other subcommands have is named as
///   theirs.
/// - **1**: a run that failed on some input: `CommandFailure` and any other error, printed as
///   `landmarker: MESSAGE`, a Foundation or POSIX error by its system text (`errorText(_:)`).
///   `ExitCode` errors exit with their code, having printed their own messages.
/// - **130 / 143**: interrupted by SIGINT / SIGTERM (`PartialFiles`).
enum ExitRule {
    /// Prints what `error` calls for and exits with its status; `arguments` are the command
    /// line's (without the program name), which name the subcommand.
    static func exit(with error: any Error, arguments: [String]) -> Never {
        if let failure = error as? CommandFailure {
            printError("landmarker: \(failure.message)")
            Landmarker.exit(withError: ExitCode.failure)
        }
        if let validation = error as? ValidationError {
            printError(usageErrorText(validation.message, arguments: arguments))
            Landmarker.exit(withError: ExitCode.validationFailure)
        }
        guard error is ExitCode || Landmarker.exitCode(for: error) != .failure else {
            // Not ArgumentParser's: its message would be the error's raw description.
            printError("landmarker: \(errorText(error))")
            Landmarker.exit(withError: ExitCode.failure)
        }
        if let text = unknownOptionText(for: error, arguments: arguments) {
            printError(text)
            Landmarker.exit(withError: ExitCode.validationFailure)
        }
        Landmarker.exit(withError: error)
    }

    /// A usage error found once the arguments were parsed, as ArgumentParser prints those it
    /// finds: the message, then the usage of the subcommand `arguments` name.
    static func usageErrorText(_ message: String, arguments: [String]) -> String {
        let path = commandPath(of: arguments)
        let name = (["landmarker"] + path.map(\.name)).joined(separator: " ")
        let usage = path.last.map { Landmarker.usageString(for: $0.type) } ?? Landmarker.usageString()
        return "Error: \(message)\nUsage: \(usage)\n  See '\(name) --help' for more information."
    }

    /// For an unknown option that other subcommands have, ArgumentParser's full text with the
    /// option named as theirs ("an option of 'landmarker hand'") instead of the closest option
    /// of this one (which may be unrelated: `pose --lite` would suggest `--video`); nil for any
    /// other error.
    static func unknownOptionText(for error: any Error, arguments: [String]) -> String? {
        let message = Landmarker.message(for: error)
        let prefix = "Unknown option '"
        guard message.hasPrefix(prefix), let option = message.dropFirst(prefix.count).split(separator: "'").first else {
            return nil
        }
        let command = commandPath(of: arguments).map(\.name)
        let owners = CommandTree.leaves().filter { $0.path != command && $0.options.contains(String(option)) }
        guard !owners.isEmpty else { return nil }
        let names = owners.map { "'landmarker \($0.path.joined(separator: " "))'" }.joined(separator: " and ")
        let refined = "Unknown option '\(option)' for 'landmarker \(command.joined(separator: " "))': an option of \(names)"
        return Landmarker.fullMessage(for: error).replacing(message, with: refined)
    }

    /// The subcommands `arguments` start with (`extract`, `pose`), by name and type.
    private static func commandPath(of arguments: [String]) -> [(name: String, type: any ParsableCommand.Type)] {
        var command: any ParsableCommand.Type = Landmarker.self
        var path: [(name: String, type: any ParsableCommand.Type)] = []
        for argument in arguments {
            guard let next = command.configuration.subcommands.first(where: { $0._commandName == argument }) else { break }
            command = next
            path.append((argument, next))
        }
        return path
    }
}

/// The subcommands and their options, as ArgumentParser describes them (`--experimental-dump-help`).
private struct CommandTree: Decodable {
    struct Command: Decodable {
        let commandName: String
        let arguments: [Argument]?
        let subcommands: [Command]?
    }

    struct Argument: Decodable {
        let names: [Name]?
    }

    struct Name: Decodable {
        let kind: String
        let name: String
    }

    let command: Command

    /// Every subcommand without subcommands of its own (ArgumentParser's `help` left out): its
    /// name path and its long options (`--lite`).
    static func leaves() -> [(path: [String], options: Set<String>)] {
        guard let tree = try? JSONDecoder().decode(CommandTree.self, from: Data(Landmarker._dumpHelp().utf8)) else {
            return []
        }
        func leaves(of command: Command, path: [String]) -> [(path: [String], options: Set<String>)] {
            guard let subcommands = command.subcommands, !subcommands.isEmpty else {
                let names = (command.arguments ?? []).flatMap { $0.names ?? [] }.filter { $0.kind == "long" }
                return [(path, Set(names.map { "--" + $0.name }))]
            }
            return subcommands.filter { $0.commandName != "help" }.flatMap { leaves(of: $0, path: path + [$0.commandName]) }
        }
        return leaves(of: tree.command, path: [])
    }
}
