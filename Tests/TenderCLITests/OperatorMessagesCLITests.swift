import Foundation
import Tender
import TenderHandoff
import Testing

/// What a careful operator expects of the messages and of what is typed (issue 24): nothing typed is dropped or cut,
/// errors name the flag typed and the field that is wrong, an unknown provider lists the four, a URL nobody's
/// callback matches is not guessed into one, and the demo keeps to its own journal.
@Suite("tender: messages and what is typed")
struct OperatorMessagesCLITests {
    static let square = ["square", "request", "--callback", "my-app://done", "--amount", "100", "--currency", "USD"]

    @Test("text over the request URL's limit is refused, naming the flag of the field that is too long")
    func longestFieldNamed() async throws {
        let long = String(repeating: "a", count: 100_000)
        let cases: [([String], String)] = [
            (Self.square + ["--application-id", long], "--application-id"),
            (Self.square + ["--application-id", "a", "--notes", long], "--notes"),
            (Self.square + ["--application-id", "a", "--user-info", long], "--user-info"),
            (["swipe", "request", "--amount", "100", "--billing-city", long], "--billing-city"),
            (["swipe", "request", "--amount", "100", "--description", long], "--description"),
            (
                ["sumup", "request", "--amount", "100", "--currency", "EUR", "--affiliate-key", "K", "--title", long],
                "--title"
            ),
        ]
        for (arguments, flag) in cases {
            let stderr = try await expectBadInput(
                arguments,
                mentioning: "its longest field is \(flag), 100000 characters"
            )
            #expect(stderr.contains("over Tender's 64 KiB limit"))
            #expect(!stderr.contains("notes") || flag == "--notes", "\(stderr)")
        }
    }

    @Test("errors from the request's rules name the flag typed; the checks made as it is typed, never a wire field")
    func flagsNotWireFields() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = directory.appendingPathComponent("j.sqlite").path
        // Checked as typed: ArgumentParser names the flag, the check says what the value must be.
        let typed: [([String], String)] = [
            (
                ["swipe", "request", "--amount", "1", "--return-url", "softpos://x", "--return-app-name", "A"],
                "'--return-url <url>': it uses a POS app's own scheme 'softpos'"
            ),
            (
                [
                    "sumup", "request", "--amount", "1", "--currency", "EUR", "--affiliate-key", "K", "--callback-fail",
                    "sumupmerchant://x",
                ], "'--callback-fail <url>': it uses a POS app's own scheme"
            ),
            (
                [
                    "softpos", "request", "--type", "sale", "--amount", "1", "--currency", "EUR", "--response-url",
                    "softpos://x",
                ], "'--response-url <url>': it uses a POS app's own scheme"
            ),
            (Self.square + ["--application-id", ""], "'--application-id <application-id>': it is empty"),
        ]
        for (arguments, fragment) in typed {
            let stderr = try await expectBadInput(arguments, mentioning: fragment)
            for wire in ["returnURL", "callbackfail", "responseUrl", "applicationID"] {
                #expect(!stderr.contains(wire), "\(stderr)")
            }
        }
        // The library's rules: the flag first, then the library's message.
        let library: [([String], String)] = [
            (
                [
                    "pay", "swipe", "--amount", "100", "--return-url", "my-app://done?tender_token=x",
                    "--return-app-name", "A", "--journal", journal,
                ], "error: --callback: "
            ),
            (
                [
                    "sumup", "request", "--amount", "1", "--currency", "EUR", "--affiliate-key", "K",
                    "--foreign-transaction-id", String(repeating: "x", count: 129),
                ],
                "error: --foreign-transaction-id: foreign-tx-id must be at most 128 printable ASCII characters."
            ),
        ]
        for (arguments, fragment) in library {
            _ = try await expectBadInput(arguments, mentioning: fragment)
        }
    }

    @Test("a note over what the journal keeps is refused with the limit, never cut; one at the limit is kept whole")
    func noteNotCut() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = ["--journal", directory.appendingPathComponent("j.sqlite").path]
        let pay = try await CLIRunner.run(
            [
                "pay", "sumup", "--amount", "100", "--currency", "EUR", "--affiliate-key", "K", "--callback-success",
                "my-app://ok", "--payment-id", "order-7",
            ] + journal
        )
        #expect(pay.status == 0, "\(pay.stderr)")
        _ = try await expectBadInput(
            [
                "journal", "resolve", "order-7", "--outcome", "approved", "--note",
                String(repeating: "n", count: 102_400),
            ]
                + journal,
            mentioning: "--note is 102400 characters; it may have at most 1024"
        )
        _ = try await expectBadInput(
            [
                "journal", "resolve", "order-7", "--outcome", "approved", "--transaction-id",
                String(repeating: "T", count: 257),
            ]
                + journal,
            mentioning: "--transaction-id is 257 characters; it may have at most 256"
        )
        let id = try #require(PaymentID(rawValue: "order-7"))
        let entry = try #require(try PaymentJournal(path: journal[1]).entry(id))
        #expect(entry.state == .pending, "nothing was written")
        let note = String(repeating: "é", count: 1024)
        let resolved = try await CLIRunner.run(
            ["journal", "resolve", "order-7", "--outcome", "approved", "--note", note] + journal
        )
        #expect(resolved.status == 0, "\(resolved.stderr)")
        let kept = try #require(try PaymentJournal(path: journal[1]).entry(id))
        #expect(kept.resolution?.note == note)
    }

    @Test(
        "an unknown provider or command lists the four providers",
        arguments: [["pay", "paypal", "--amount", "5"], ["paypal", "request"], ["pay", "paypal"]]
    )
    func unknownProvider(arguments: [String]) async throws {
        let stderr = try await expectBadInput(arguments, mentioning: "'paypal'")
        #expect(stderr.contains("square, swipe, softpos") && stderr.contains("sumup"), "\(stderr)")
        #expect(!stderr.contains("Unknown option"), "\(stderr)")
    }

    @Test(
        "a URL that no provider's callback matches says so and is never read as one provider's",
        arguments: [
            "my-app://done?result=approved", "my-app://done?data=hello", "my-app://done?result=",
            "my-app://done?result", "my-app://done?status=ok",
        ]
    )
    func noGuessedProvider(url: String) async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = directory.appendingPathComponent("j.sqlite").path
        _ = try PaymentJournal(path: journal)
        for arguments in [["handle", url, "--journal", journal], ["decode", url]] {
            let stderr = try await expectBadInput(arguments, mentioning: "no POS app's")
            for provider in ["softpos callback", "square callback", "SoftPOS result", "cannot be read"] {
                #expect(!stderr.contains(provider), "\(stderr)")
            }
        }
    }

    @Test("a SoftPOS or Square callback is still recognised by its JSON (softpos §2, square §2.2)")
    func realCallbacksStillRecognised() async throws {
        let softPOS = try await decodeJSON([
            SoftPOSCLIFixtures.callback(
                #"{"result":{"refusalCode":"00","transactionId":"449333","customMessage":{"isoStan":"000206"}}}"#
            )
        ])
        #expect(softPOS["provider"] == .string("softpos"))
        let square = try await decodeJSON([
            "my-app://done?data=" + PercentEncoding.encode(#"{"status":"ok","transaction_id":"T"}"#)
        ])
        #expect(square["provider"] == .string("square"))
    }

    @Test("the demo refuses a journal that holds payments it did not make, and leaves it as it was")
    func demoKeepsToItself() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("shop.sqlite").path
        let pay = try await CLIRunner.run(
            [
                "pay", "swipe", "--amount", "1099", "--return-url", "my-app://done", "--return-app-name", "Shop",
                "--payment-id", "order-1042", "--journal", path,
            ]
        )
        #expect(pay.status == 0, "\(pay.stderr)")
        _ = try await expectBadInput(
            ["demo", "--journal", path],
            mentioning: "already holds 1 payment that the demo did not make"
        )
        let entries = try PaymentJournal(path: path).entries()
        #expect(entries.map(\.id.rawValue) == ["order-1042"])
        // A journal only demos used is fine, run after run.
        let own = directory.appendingPathComponent("demo.sqlite").path
        for _ in 0..<2 {
            let result = try await CLIRunner.run(["demo", "--journal", own])
            #expect(result.status == 0, "\(result.stderr)")
        }
        // Each run: the table's 7 payments, a forged approval and a payment reconciled from the server.
        #expect(try PaymentJournal(path: own).entries().count == 18)
    }
}
