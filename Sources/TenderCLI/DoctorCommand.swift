import ArgumentParser
import Foundation
import Tender

/// `tender doctor`: checks an app's Info.plist for app-to-app payments.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check an app's Info.plist for app-to-app payments, and say how to fix each problem.",
        discussion: """
            Reads the Info.plist (XML or binary) and checks that the callback scheme is registered in \
            CFBundleURLTypes, that no registered scheme (and not the callback scheme) is a POS app's own, that \
            each provider's scheme is in LSApplicationQueriesSchemes within its first 50 entries, and that these \
            entries have the right types. Prints one line per check, "ok" or "problem", and the fix under each \
            problem; with --json one object with the checks. Exit status: 0 when every check passes; 1 when a \
            check finds a problem (the report is still printed, and standard error gets one summary line) or \
            when the file cannot be read.
            """
    )

    @Option(
        name: .customLong("info-plist"),
        help: ArgumentHelp("The app's Info.plist, XML or binary.", valueName: "file")
    )
    var infoPlist: String

    @Option(
        name: .customLong("callback-scheme"),
        help: ArgumentHelp(
            "The scheme of your callback URLs, such as my-shop; without it any scheme of your own will do.",
            valueName: "scheme"
        ),
        transform: Self.scheme
    )
    var callbackScheme: String?

    @Option(
        name: .customLong("provider"),
        help: ArgumentHelp(
            "The providers your app uses, a comma list of square, swipe, softpos, sumup (default: all).",
            valueName: "list"
        ),
        transform: Self.providers
    )
    var providers: [PaymentProvider]?

    @Flag(help: "Print one JSON object.")
    var json = false

    /// `--callback-scheme`: a URL scheme, checked before the file is read, so that a mistyped one is refused on its
    /// own instead of making a report of the file.
    static func scheme(_ text: String) throws -> String {
        guard AppConfigurationCheck.isValidScheme(text) else {
            throw CLIError(
                "it is not a URL scheme: a letter, then letters, digits, '+', '-' and '.', such as my-shop (the part "
                    + "of my-shop://payment-done before ://)."
            )
        }
        return text
    }

    func run() async throws {
        let selected = providers ?? PaymentProvider.all
        let plist: InfoPlist
        do {
            plist = try InfoPlist(contentsOf: URL(fileURLWithPath: infoPlist))
        } catch {
            throw CLIError("\(error.code.rawValue): \(error.message)")
        }
        let report = AppConfigurationCheck(callbackScheme: callbackScheme, providers: selected).run(on: plist)
        if json {
            Output.line(Self.describe(report, file: infoPlist).text)
        } else {
            for finding in report.findings {
                let subject = finding.provider.map { "[\($0.rawValue)] " } ?? ""
                Output.line("\(finding.status == .ok ? "ok     " : "problem") \(subject)\(finding.message)")
                if let fix = finding.fix { Output.line("        fix: \(fix)") }
            }
        }
        let problems = report.problems.count
        guard problems > 0 else { return }
        Output.flush()
        Output.error(
            "error: \(problems) problem\(problems == 1 ? "" : "s") in \(infoPlist); apply the fixes above, then run "
                + "tender doctor again."
        )
        throw ExitCode(1)
    }

    /// `--provider`'s comma list.
    static func providers(_ list: String) throws -> [PaymentProvider] {
        let names = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard !names.isEmpty else { throw CLIError("it needs at least one of square, swipe, softpos, sumup.") }
        return try names.map { name in
            guard let provider = PaymentProvider.all.first(where: { $0.rawValue == name }) else {
                throw CLIError("'\(UntrustedText.safe(name))' is no provider; use square, swipe, softpos or sumup.")
            }
            return provider
        }
    }

    static func describe(_ report: AppConfigurationReport, file: String) -> JSONOutput {
        var output = JSONOutput()
        output.set("info_plist", file)
        output.set("ok", report.isOK)
        output.set("problems", report.problems.count)
        output["checks"] = .array(
            report.findings.map { finding in
                var item = JSONOutput()
                item.set("check", finding.check.rawValue)
                item.set("provider", finding.provider?.rawValue)
                item.set("status", finding.status.rawValue)
                item.set("message", finding.message)
                item.set("fix", finding.fix)
                return .object(item.object)
            }
        )
        return output
    }
}
