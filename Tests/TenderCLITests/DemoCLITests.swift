import Foundation
import Tender
import TenderHandoff
import TenderProviderAPI
import Testing

@Suite("tender demo")
struct DemoCLITests {
    /// The table's rows (the lines between the rule under the header and the next empty line), each cut into
    /// its cells at the header's column positions.
    static func rows(_ output: String) -> [[String]] {
        let lines = output.components(separatedBy: "\n")
        guard let headerIndex = lines.firstIndex(where: { $0.hasPrefix("#  app") }) else { return [] }
        let header = Array(lines[headerIndex])
        var starts: [Int] = []
        // Columns are two or more spaces apart; a header such as "POS app" has one space inside.
        for index in header.indices
        where header[index] != " "
            && (index == 0 || (index >= 2 && header[index - 1] == " " && header[index - 2] == " "))
        {
            starts.append(index)
        }
        return lines[(headerIndex + 2)...].prefix { !$0.isEmpty }.map { line in
            let characters = Array(line)
            return starts.indices.map { column in
                let from = min(starts[column], characters.count)
                let to = column + 1 < starts.count ? min(starts[column + 1], characters.count) : characters.count
                return String(characters[from..<to]).trimmingCharacters(in: .whitespaces)
            }
        }
    }

    @Test("prints a table with a row for every payment it makes, the servers' answers in their own column (issue 34)")
    func table() async throws {
        let result = try await CLIRunner.run(["demo"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let rows = Self.rows(result.stdout)
        try #require(rows.count == 9, "\(result.stdout)")
        #expect(rows.map { $0[0] } == (1...9).map(String.init), "each payment one row, numbered as the text names it")
        #expect(
            rows.map { $0[1] } == [
                "square", "swipe", "square", "square", "sumup", "softpos", "softpos", "square", "square",
            ]
        )
        let outcomes = rows.map { $0[6] }
        #expect(outcomes[0].hasPrefix("approved, tx "))
        #expect(outcomes[1] == "declined")
        #expect(outcomes[2] == "cancelled (payment_canceled)")
        #expect(outcomes[3] == "failed (amount_too_small)", "the simulated Point of Sale applies the card minimum")
        #expect(outcomes[4].hasPrefix("approved, tx T"))
        #expect(outcomes[5].hasPrefix("approved, tx "))
        let saleID = String(outcomes[5].dropFirst("approved, tx ".count))
        #expect(rows[6][2] == "20.00 EUR refund of \(saleID)", "the refund names the sale's transaction")
        for row in rows.prefix(7) { #expect(row[4] == "recorded" && row[5] == "completed", "\(row)") }
        // The servers' column: what they answered of each payment; Swipe and SoftPOS are never asked.
        #expect(
            rows.map { $0[7] } == [
                "confirmed (matches)", "—", "unverifiable (not_found_yet)", "unverifiable (not_found_yet)",
                "confirmed (matches)", "—", "—", "contradicted (no_such_order)", "confirmed (found)",
            ]
        )
        // #8: another app answered with the request's own token; #9: Point of Sale approved, its callback was lost.
        #expect(rows[7][3] == "another app answers: approved" && rows[7][4] == "recorded")
        #expect(rows[7][5] == "completed (flagged)" && rows[7][6] == "approved, tx FORGEDBYANOTHERAPP")
        #expect(rows[8][4] == "none" && rows[8][5] == "completed" && rows[8][6] == "approved, from the server")
        let shown = result.stdout.components(separatedBy: "\n")
        #expect(
            shown.contains(
                "  a forged approval (another app, with a token no payment was issued): unsolicited; no payment changed."
            )
        )
        #expect(shown.contains("  #1's callback again (a replay): duplicate; #1 stayed completed."))
        #expect(result.stdout.contains("stayed completed: the forgery and the replay changed nothing"))
        // Issue 22: the sandbox's servers, asked over HTTP, confirm #1 and #5, contradict a forged approval that
        // carries the right token, and prove approved the payment whose callback never came.
        let lines = result.stdout.components(separatedBy: "\n")
        #expect(lines.contains { $0.hasPrefix("  #1 square: confirmed (matches). Square's record (order ") })
        #expect(lines.contains { $0.hasPrefix("  #5 sumup: confirmed (matches). SumUp's transaction T") })
        #expect(
            lines.contains {
                $0.hasPrefix("  #8 square, a forged approval (the request's own token, an invented transaction ID)")
                    && $0.contains("recorded completed approved, then contradicted (no_such_order)")
            }
        )
        #expect(
            lines.contains(
                "  #9 square, approved on Point of Sale but its callback never came: unknown after the hand-off time-out."
            )
        )
        #expect(lines.contains("  #9 square: unknown → completed (approved), confirmed (found)"))
        #expect(
            lines.contains(
                "recover() delivers #8 (needs reconciliation) and #9 (completed, approved) to the app again."
            )
        )
        #expect(!result.stdout.contains("EAAA"), "no access token, not even the sandbox's")
        #expect(!CardNumberScreen.containsCardNumber(result.stdout))
        // The temporary folder it prints is named by 12 base64url characters: too few digits, however random, for
        // a card number (a UUID's digits and hyphens made one about 1 run in 10,000).
        let folder = result.stdout.split(separator: "\n").first { $0.hasPrefix("Journal: ") }?
            .split(separator: "/").first { $0.hasPrefix("tender-demo-") }
        let name = try #require(folder).dropFirst("tender-demo-".count)
        #expect(name.count == 12 && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
    }

    @Test("the same seed gives the same table; another seed other transaction IDs")
    func deterministic() async throws {
        let first = Self.rows(try await CLIRunner.run(["demo", "--seed", "7"]).stdout)
        let second = Self.rows(try await CLIRunner.run(["demo", "--seed", "7"]).stdout)
        let other = Self.rows(try await CLIRunner.run(["demo", "--seed", "8"]).stdout)
        #expect(!first.isEmpty && first == second)
        #expect(first != other)
    }

    @Test("with --journal the payments stay in that journal: completed, acknowledged, one per row")
    func journal() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("demo.sqlite").path
        // Two runs with two seeds: the sandbox's orders of one seed are the same every run, and one order confirms
        // one payment of a journal (issue 32).
        for seed in 1...2 {
            let result = try await CLIRunner.run(["demo", "--journal", path, "--seed", "\(seed)"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("Journal: \(path)"))
        }
        let entries = try PaymentJournal(path: path).entries()
        // Each run: the table's 7 payments, a forged approval and a payment reconciled from the server.
        #expect(entries.count == 18)
        #expect(entries.allSatisfy { $0.state == .completed })
        #expect(entries.filter(\.isApproved).count == 12)
        #expect(Set(entries.map(\.provider)) == Set(PaymentProvider.all))
        // Acknowledged, but the forged approvals the server contradicted: they wait for a person.
        let flagged = entries.filter(\.needsReconciliation)
        #expect(flagged.count == 2 && flagged.allSatisfy { $0.verification?.reason == .noSuchOrder })
        #expect(entries.allSatisfy { ($0.acknowledgedAt == nil) == $0.needsReconciliation })
        #expect(entries.filter { $0.outcome?.source == .provider }.count == 2)
        #expect(entries.filter { $0.verification?.verdict == .confirmed }.count == 6)
    }

    @Test("without --journal the journal lives in a temporary directory, deleted afterwards")
    func temporaryJournal() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await CLIRunner.run(["demo"], environment: ["TMPDIR": directory.path])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("Journal: ") })
        let path = String(line.dropFirst("Journal: ".count).prefix { $0 != "," })
        #expect(path.hasPrefix(directory.path) && path.hasSuffix("journal.sqlite"), "\(path)")
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
