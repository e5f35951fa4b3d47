public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, with the few parts of Foundation's `Process` the tests use: every test
/// of both packages starts its children (`tender`, `tender-server`, PostgreSQL's tools, a browser driver, Python)
/// through it.
///
/// Not Foundation's `Process`: on Linux its `run()` reads `/proc/self/fd` with a 256-byte over-read of each directory
/// entry, which crashes the test process now and then (SIGSEGV in `memcpy`, seen in CI on Swift 6.3.1 with about
/// 1,400 descriptors open; swift-corelibs-foundation fixed it after 6.3). And the child gets only its three standard
/// descriptors: every other descriptor of the test process (sockets and pipes other tests open at the same moment)
/// is closed in the child before it runs, so a child never holds another test's pipe open.
public final class SpawnedProcess: @unchecked Sendable {
    /// How the child ended.
    public enum TerminationReason: Sendable, Equatable {
        /// It exited; ``terminationStatus`` is its exit status.
        case exit
        /// A signal ended it; ``terminationStatus`` is the signal's number.
        case uncaughtSignal
    }

    /// The program to run.
    public var executableURL: URL?
    /// Its arguments (without the program's own name).
    public var arguments: [String] = []
    /// Its environment; `nil`: the test process's own.
    public var environment: [String: String]?
    /// Its working directory; `nil`: the test process's.
    public var currentDirectoryURL: URL?
    /// Standard input: a `Pipe` (the child reads its reading end), a `FileHandle`, or `nil` (the test process's own).
    public var standardInput: Any?
    /// Standard output: a `Pipe` (the child writes its writing end), a `FileHandle`, or `nil`.
    public var standardOutput: Any?
    /// Standard error, as ``standardOutput``.
    public var standardError: Any?

    private let lock = NSLock()
    private var pid: pid_t = 0
    private var waitStatus: Int32?

    /// Creates a process, not started.
    public init() {}

    /// The child's process ID once started.
    public var processIdentifier: Int32 { lock.withLock { pid } }

    /// Starts the child. The parent's copies of the pipes' ends the child uses are closed here, so that reading a
    /// pipe ends when the child does.
    /// - Throws: `POSIXError` when the program cannot be started.
    public func run() throws {
        guard let executableURL else { throw POSIXError(.ENOENT) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with no signal blocked and every signal at its default, whatever this thread had.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var closeInParent: [FileHandle] = []
        for (target, stream, isInput) in [
            (Int32(0), standardInput, true), (Int32(1), standardOutput, false), (Int32(2), standardError, false),
        ] {
            switch stream {
            case let pipe as Pipe:
                let childEnd = isInput ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                posix_spawn_file_actions_adddup2(&actions, childEnd.fileDescriptor, target)
                closeInParent.append(childEnd)
            case let handle as FileHandle where handle === FileHandle.nullDevice:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", isInput ? O_RDONLY : O_WRONLY, 0)
            case let handle as FileHandle:
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
            default:
                break
            }
        }
        // Everything else the test process has open stays out of the child.
        _ = Self.addCloseFrom?(&actions, 3)
        if let directory = currentDirectoryURL {
            guard let addChdir = Self.addChdir else { throw POSIXError(.EINVAL) }
            _ = addChdir(&actions, directory.path)
        }

        let path = executableURL.path
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp = variables.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        lock.withLock { pid = child }
        for handle in closeInParent { try? handle.close() }
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` and `…_addchdir_np` (2.34 and 2.29; Debian 12 has 2.36),
    /// which its headers declare only for `_GNU_SOURCE`, so Swift's Glibc module does not show them: found at run time.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    private typealias AddChdir =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32
    private static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: AddCloseFrom.self)
    }
    private static let addChdir: AddChdir? = dlsym(nil, "posix_spawn_file_actions_addchdir_np").map {
        unsafeBitCast($0, to: AddChdir.self)
    }

    /// Waits for the child to end (blocking the calling thread: call it off the cooperative pool).
    public func waitUntilExit() {
        let child = processIdentifier
        guard child > 0 else { return }
        while lock.withLock({ waitStatus }) == nil {
            var status: Int32 = 0
            let reaped = waitpid(child, &status, 0)
            if reaped == child {
                lock.withLock { waitStatus = status }
            } else if reaped < 0, errno != EINTR {
                lock.withLock { waitStatus = waitStatus ?? 0 }
            }
        }
    }

    /// Whether the child was started and has not ended yet.
    public var isRunning: Bool {
        let child = processIdentifier
        guard child > 0 else { return false }
        return lock.withLock {
            guard waitStatus == nil else { return false }
            var status: Int32 = 0
            let reaped = waitpid(child, &status, WNOHANG)
            if reaped == child {
                waitStatus = status
                return false
            }
            return reaped == 0
        }
    }

    /// How the child ended (once it has).
    public var terminationReason: TerminationReason {
        let status = lock.withLock { waitStatus } ?? 0
        return status & 0x7F == 0 ? .exit : .uncaughtSignal
    }

    /// The exit status, or the number of the signal that ended the child (once it has).
    public var terminationStatus: Int32 {
        let status = lock.withLock { waitStatus } ?? 0
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : status & 0x7F
    }

    /// Sends SIGINT.
    public func interrupt() { signal(SIGINT) }

    /// Sends SIGTERM.
    public func terminate() { signal(SIGTERM) }

    /// Sends a signal, if the child runs.
    public func signal(_ number: Int32) {
        guard isRunning else { return }
        kill(processIdentifier, number)
    }
}

/// Runs blocking work (waiting for a child, reading its pipes) on a thread of its own and awaits its result, leaving
/// the cooperative pool to the servers the tests run in their own process: two tests blocked on it would starve them.
public func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}
