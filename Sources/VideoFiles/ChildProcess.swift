#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemInterface

/// A program run as a child process (`posix_spawnp`, found on `PATH`) with its standard output
/// and standard error connected to pipes; standard input is a pipe too when the caller writes
/// to it (`writesInput`), otherwise `/dev/null`.
///
/// Not thread-safe as a whole: one thread reads `standardOutput` and calls the methods, another
/// may read `standardError` until its end; `wait()` closes it, so it comes after that reader.
final class ChildProcess {
    let pid: pid_t
    /// The read ends of the child's standard output and standard error.
    let standardOutput: Int32
    let standardError: Int32
    /// The write end of the child's standard input, or -1 without `writesInput`.
    let standardInput: Int32
    private var exitStatus: Int32?
    private var outputClosed = false
    private var inputClosed = false

    /// Starts `arguments[0]` with `arguments`. With `writesInput`, the process ignores
    /// `SIGPIPE` from then on, so that a child that stops reading gives a write error rather
    /// than ending this process.
    /// - Throws: `VideoFileError.programNotFound` when the program is not on `PATH`,
    ///   `.io` when a pipe or the spawn fails otherwise.
    init(_ arguments: [String], writesInput: Bool = false) throws(VideoFileError) {
        // Close-on-exec: another child started later must not hold these pipes open (a reader
        // would then never see the end of a stream); dup2 in the child clears the flag on 0-2.
        var pipes: [[Int32]] = []
        for _ in 0..<(writesInput ? 3 : 2) {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0, fcntl(ends[0], F_SETFD, FD_CLOEXEC) == 0, fcntl(ends[1], F_SETFD, FD_CLOEXEC) == 0 else {
                let reason = systemErrorText()
                (pipes.joined() + ends.filter { $0 >= 0 }).forEach { close($0) }
                throw .io("pipe: \(reason)")
            }
            pipes.append(ends)
        }
        let (outputPipe, errorPipe) = (pipes[0], pipes[1])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if writesInput {
            signal(SIGPIPE, SIG_IGN)
            posix_spawn_file_actions_adddup2(&actions, pipes[2][0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
        for descriptor in pipes.joined() { posix_spawn_file_actions_addclose(&actions, descriptor) }

        // The child runs in a process group of its own, so that an interrupt from the terminal
        // (Ctrl-C) reaches this process alone, which then ends the child (`terminate()`, a closed
        // pipe) or lets it finish; and it starts with the default actions for SIGINT and SIGTERM,
        // which a caller that handles them itself has set to be ignored (ignored signals stay
        // ignored across exec), so that `terminate()` stops it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        sigaddset(&defaultSignals, SIGINT)
        sigaddset(&defaultSignals, SIGTERM)
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawnp(&child, arguments[0], &actions, &attributes, argv, environ)
        // The child's ends.
        close(outputPipe[1])
        close(errorPipe[1])
        if writesInput { close(pipes[2][0]) }
        guard status == 0 else {
            close(outputPipe[0]); close(errorPipe[0])
            if writesInput { close(pipes[2][1]) }
            if status == ENOENT { throw .programNotFound(arguments[0]) }
            throw .io("\(arguments[0]): \(systemErrorText(status))")
        }
        pid = child
        standardOutput = outputPipe[0]
        standardError = errorPipe[0]
        standardInput = writesInput ? pipes[2][1] : -1
        inputClosed = !writesInput
    }

    /// Writes all of `bytes` to the child's standard input.
    func write(_ bytes: UnsafeRawBufferPointer) throws(VideoFileError) {
        do {
            try SystemCalls.writeAll(bytes, to: standardInput)
        } catch {
            throw .io("write: \(error.text)")
        }
    }

    /// Closes the child's standard input (its end of file). Idempotent.
    func closeInput() {
        guard !inputClosed else { return }
        inputClosed = true
        close(standardInput)
    }

    /// Reads from `descriptor` until `buffer` is full or the stream ends; returns the bytes read.
    static func readFully(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(VideoFileError) -> Int {
        do {
            return try SystemCalls.readFully(descriptor, into: buffer)
        } catch {
            throw .io("read: \(error.text)")
        }
    }

    /// `readFully(_:into:)` into the whole of `bytes`.
    static func readFully(_ descriptor: Int32, into bytes: inout [UInt8]) throws(VideoFileError) -> Int {
        let result = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(VideoFileError) in try readFully(descriptor, into: buffer) }
        }
        return try result.get()
    }

    /// Reads what `descriptor` has, up to `buffer.count` bytes, waiting for at least one byte;
    /// returns 0 at the end of the stream.
    static func readAvailable(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(VideoFileError) -> Int {
        do {
            return try SystemCalls.readSome(descriptor, into: buffer)
        } catch {
            throw .io("read: \(error.text)")
        }
    }

    /// Closes the read end of standard output: a child still writing to it then stops
    /// (`SIGPIPE`). Idempotent.
    func closeOutput() {
        guard !outputClosed else { return }
        outputClosed = true
        close(standardOutput)
    }

    /// Asks the child to stop (`SIGTERM`), unless it was already waited for.
    func terminate() {
        if exitStatus == nil { kill(pid, SIGTERM) }
    }

    /// Closes both pipes, waits for the child to exit and returns its exit status (128 + the
    /// signal number when a signal ended it). Call it once the standard-error reader is done.
    /// Idempotent.
    @discardableResult
    func wait() -> Int32 {
        if let exitStatus { return exitStatus }
        closeInput()
        closeOutput()
        close(standardError)
        // 0, as a zero wait status reads, should the child already have been reaped.
        let result = SystemCalls.waitForExit(of: pid) ?? 0
        exitStatus = result
        return result
    }

    deinit {
        if exitStatus == nil {
            closeOutput()
            terminate()
            wait()
        }
    }
}
