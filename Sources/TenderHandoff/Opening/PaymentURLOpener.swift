public import Foundation

/// Opens a POS app's request URL: how the coordinator hands a payment off.
///
/// On iOS use `UIApplicationOpener`, which awaits `UIApplication.open`'s answer. Elsewhere
/// ``PrintingOpener`` prints the URL for a person or a script to open, and ``CommandOpener`` runs a
/// command with the URL as its last argument. Tests and simulators provide their own.
public protocol PaymentURLOpener: Sendable {
    /// Opens `url`, returning whether the POS app was opened.
    ///
    /// Return `false` when the system says it cannot open the URL (the POS app is not installed).
    /// The coordinator then marks the payment `PaymentState.notOpened`.
    func open(_ url: URL) async -> Bool
}

/// Prints the request URL on standard output and reports it opened: for terminals and scripts, where a
/// person or another program carries the URL to the POS app.
public struct PrintingOpener: PaymentURLOpener {
    /// Creates the opener.
    public init() {}

    /// Prints `url` and a newline.
    public func open(_ url: URL) async -> Bool {
        FileHandle.standardOutput.write(Data((url.absoluteString + "\n").utf8))
        return true
    }
}

/// Runs a command with the request URL as its last argument, such as `xdg-open` or `adb shell am start -d`;
/// the POS app counts as opened when the command exits with status 0.
///
/// The command's own output goes where the process's output goes. Its arguments are passed as they are,
/// never through a shell.
public struct CommandOpener: PaymentURLOpener {
    /// The executable's path, such as `/usr/bin/xdg-open`.
    public var executable: String
    /// Arguments that go before the URL.
    public var arguments: [String]

    /// Creates an opener that runs `executable arguments… URL`.
    public init(executable: String, arguments: [String] = []) {
        self.executable = executable
        self.arguments = arguments
    }

    /// Runs the command and waits for it to exit.
    public func open(_ url: URL) async -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments + [url.absoluteString]
        return await withCheckedContinuation { continuation in
            process.terminationHandler = { process in
                // Drop the handler, and the continuation it holds, once it has run.
                process.terminationHandler = nil
                continuation.resume(returning: process.terminationReason == .exit && process.terminationStatus == 0)
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(returning: false)
            }
        }
    }
}

#if canImport(UIKit)
public import UIKit

/// Opens the POS app with `UIApplication.shared.open` and returns its answer: `false` when iOS could not
/// open the URL (the POS app is not installed, or its scheme is missing from `LSApplicationQueriesSchemes`).
public struct UIApplicationOpener: PaymentURLOpener {
    /// Creates the opener.
    public init() {}

    /// Asks UIKit to open `url`, on the main actor, and waits for its answer.
    public func open(_ url: URL) async -> Bool {
        await UIApplicationOpener.openOnMainActor(url)
    }

    @MainActor
    private static func openOnMainActor(_ url: URL) async -> Bool {
        await UIApplication.shared.open(url)
    }
}
#endif
