import Foundation
import Testing

@testable import Tender

/// What SumUp's own helpers do with a payment request, pinned as vectors (issue 26). The sources, each read for this:
///
/// - `sumup/sumup-ios-url-scheme`, `SMPPayment.framework/Versions/A/SMPPayment` at commit 0794d83 (2017), the helper
///   the README distributes, read in its x86_64 slice with `llvm-objdump --macho -d`.
///   `-[SMPPaymentRequest urlToLaunchSumupMerchantAppWithScheme:]` appends `tagDictionaryWithPrefix`, which names
///   each tag `smpprtag-<key>`, and leaves out an empty title, receipt e-mail, receipt phone or foreign-tx-id
///   (`length`, then a branch). `+[SMPPaymentRequest paymentRequestWithURL:]`, the helper's reader of request
///   URLs: `[[url scheme] lowercaseString] hasPrefix:@"sumupmerchant"`, `[[url host] lowercaseString]
///   isEqualToString:@"pay"` (the path is not read), `amount` through `decimalNumberWithString:` kept when
///   `isReasonableAmount:` (not NaN, compares greater than zero), `skip-screen-success` when its
///   `lowercaseString` is `true`, and every parameter whose name `hasPrefix:@"smpprtag-"` handed to
///   `addTag:forKey:`, which ignores an empty value or key and removes every `smpprtag-` from the key
///   (`stringByReplacingOccurrencesOfString:withString:`). `urlByAppendingStatusToURL:` answers with `smp-status`,
///   `smp-message`, `smp-tx-code` and `foreign-tx-id`: tags do not come back.
/// - The same repository's `Sources/SMPPayment/SMPPaymentRequest.m` at commit 2a8f4d7 (2026, on the branch
///   `feat/package-distribution`, not on `main`): the same empty values left out (`if (self.title.length > 0)`, …),
///   but tags under their bare keys (`queryItemWithName:tagKey`), sorted by key. A bare key is no tag to the
///   framework's reader, and can collide with a parameter (`amount`), so Tender sends the prefixed form, which the
///   SumUp app shares with that reader, in the sorted order of the source version.
@Suite("SumUp request: the helpers' behaviour (sumup §1, issue 26)")
struct SumUpHelperTests {
    static let minimal = "sumupmerchant://pay/1.0?amount=1.00&currency=EUR&affiliate-key=K"

    static func request(_ query: String) throws -> SumUpRequest {
        try SumUpRequest(urlString: minimal + query)
    }

    @Test("tags go out as smpprtag-<key>=<value>, in key order, after every other parameter (SMPPayment @0794d83)")
    func tagsOnTheWire() throws {
        let request = SumUpRequest(
            amount: Money(minorUnits: 100, currency: .eur),
            affiliateKey: "K",
            foreignTransactionID: "order-1",
            skipsSuccessScreen: true,
            tags: ["table": "4", "note": "a b+c", "amount": "x"]
        )
        let url = try request.urlString()
        #expect(
            url
                == Self.minimal
                + "&foreign-tx-id=order-1&skip-screen-success=true&smpprtag-amount=x&smpprtag-note=a%20b%2Bc&smpprtag-table=4"
        )
        #expect(try SumUpRequest(urlString: url) == request)
        // A tag named like a parameter stays a tag: the prefix keeps it apart from `amount`.
        #expect(try SumUpRequest(urlString: url).amount == Money(minorUnits: 100, currency: .eur))
    }

    @Test("empty title, receipt e-mail, receipt phone, foreign-tx-id and tag values are left out (SMPPaymentRequest.m)")
    func emptyValuesLeftOut() throws {
        let request = SumUpRequest(
            amount: Money(minorUnits: 100, currency: .eur),
            affiliateKey: "K",
            title: "",
            receiptEmail: "",
            receiptMobilePhone: "",
            foreignTransactionID: "",
            tags: ["empty": ""]
        )
        #expect(try request.urlString() == Self.minimal)
        #expect(
            try SumUpRequest(urlString: try request.urlString())
                == SumUpRequest(
                    amount: Money(minorUnits: 100, currency: .eur),
                    affiliateKey: "K"
                )
        )
    }

    @Test("an empty optional value read from a URL is no value")
    func emptyValuesRead() throws {
        let request = try Self.request(
            "&title=&callbacksuccess=&callbackfail=&receipt-email=&receipt-mobilephone=&foreign-tx-id=&skip-screen-success="
        )
        #expect(request == SumUpRequest(amount: Money(minorUnits: 100, currency: .eur), affiliateKey: "K"))
    }

    @Test(
        "a tag key must be non-empty and without smpprtag-, which the app's reader removes (addTag:forKey:)",
        arguments: ["", "smpprtag-a", "a-smpprtag-b"]
    )
    func tagKeys(_ key: String) {
        let request = SumUpRequest(amount: Money(minorUnits: 100, currency: .eur), affiliateKey: "K", tags: [key: "1"])
        let error = #expect(throws: SumUpError.self) { try request.url() }
        #expect(error?.code == .invalidTag)
    }

    @Test("tags are read as the helper's reader reads them: empty ones ignored, every smpprtag- taken out of a key")
    func tagsRead() throws {
        let request = try Self.request(
            "&smpprtag-a=1&smpprtag-=x&smpprtag-b=&smpprtag-smpprtag-c=3&smpprtag-d&smpprtag-e%3Df=g%26h"
        )
        #expect(request.tags == ["a": "1", "c": "3", "e=f": "g&h"])
        #expect(try request.urlString() == Self.minimal + "&smpprtag-a=1&smpprtag-c=3&smpprtag-e%3Df=g%26h")
    }

    @Test(
        "scheme and host in any case, any positive decimal amount, true in any case (paymentRequestWithURL:)",
        arguments: [
            ("SumUpMerchant://PAY/1.0?amount=10.00&currency=EUR&affiliate-key=K", 1000, Currency.eur, false),
            ("SUMUPMERCHANT://Pay/1.0?amount=10.00&currency=EUR&affiliate-key=K", 1000, .eur, false),
            ("sumupmerchant://pay/1.0?amount=4.5&currency=EUR&affiliate-key=K", 450, .eur, false),
            ("sumupmerchant://pay/1.0?amount=4.500&currency=EUR&affiliate-key=K", 450, .eur, false),
            ("sumupmerchant://pay/1.0?amount=7&currency=EUR&affiliate-key=K", 700, .eur, false),
            ("sumupmerchant://pay/1.0?amount=007.50&currency=EUR&affiliate-key=K", 750, .eur, false),
            ("sumupmerchant://pay/1.0?amount=0.01&currency=EUR&affiliate-key=K", 1, .eur, false),
            ("sumupmerchant://pay/1.0?amount=1000.00&currency=JPY&affiliate-key=K", 1000, .jpy, false),
            ("sumupmerchant://pay/1.0?amount=1000&currency=JPY&affiliate-key=K", 1000, .jpy, false),
            ("sumupmerchant://pay/1.0?amount=1000.000&currency=JPY&affiliate-key=K", 1000, .jpy, false),
            (
                "sumupmerchant://pay/1.0?amount=1.00&currency=EUR&affiliate-key=K&skip-screen-success=TRUE", 100, .eur,
                true
            ),
            (
                "sumupmerchant://pay/1.0?amount=1.00&currency=EUR&affiliate-key=K&skip-screen-success=True", 100, .eur,
                true
            ),
            (
                "sumupmerchant://pay/1.0?amount=1.00&currency=EUR&affiliate-key=K&skip-screen-success=FALSE", 100, .eur,
                false
            ),
        ]
    )
    func lenientReader(_ url: String, _ minorUnits: Int, _ currency: Currency, _ skips: Bool) throws {
        let request = try SumUpRequest(urlString: url)
        #expect(request.amount == Money(minorUnits: minorUnits, currency: currency))
        #expect(request.skipsSuccessScreen == skips)
        // The builder stays strict: it writes the canonical form, which reads back the same.
        let written = try request.urlString()
        #expect(written.hasPrefix("sumupmerchant://pay/1.0?amount=" + (try request.wireAmount()) + "&"))
        #expect(try SumUpRequest(urlString: written) == request)
    }

    @Test(
        "amounts the app refuses (not positive, not a number) or Tender cannot hold exactly are still refused",
        arguments: [
            ("0", "EUR"), ("0.00", "EUR"), ("-1.00", "EUR"), ("abc", "EUR"), ("", "EUR"), ("4.50.0", "EUR"),
            ("4.505", "EUR"), ("1000.50", "JPY"), ("10000000000.00", "EUR"),
            // The helper's NSDecimalNumber may take these; Tender refuses them, as no form the README's "Use `.` as
            // the decimal separator" describes.
            ("1.", "EUR"), (".5", "EUR"), ("1e2", "EUR"), ("%2B1.00", "EUR"), ("%201.00", "EUR"), ("1%2C00", "EUR"),
        ]
    )
    func refusedAmounts(_ amount: String, _ currency: String) {
        let error = #expect(throws: SumUpError.self) {
            try SumUpRequest(urlString: "sumupmerchant://pay/1.0?amount=\(amount)&currency=\(currency)&affiliate-key=K")
        }
        #expect(error?.code == .invalidAmount)
    }

    @Test(
        "beyond what the helper shows, decoding stays strict",
        arguments: [
            // The reader does not read the path, but the README's contract is pay/1.0.
            "sumupmerchant://pay/2.0?amount=1.00&currency=EUR&affiliate-key=K",
            // The app would read these as "not skipped": refused as a likely mistake.
            "sumupmerchant://pay/1.0?amount=1.00&currency=EUR&affiliate-key=K&skip-screen-success=1",
            "sumupmerchant://pay/1.0?amount=1.00&currency=EUR&affiliate-key=K&skip-screen-success=yes",
            // Another app of SumUp's (the reader's hasPrefix: takes its test and beta apps' schemes too).
            "sumupmerchanttest://pay/1.0?amount=1.00&currency=EUR&affiliate-key=K",
        ]
    )
    func stillStrict(_ url: String) {
        let error = #expect(throws: SumUpError.self) { try SumUpRequest(urlString: url) }
        #expect(error?.code == .invalidRequest)
    }

    @Test("a request's description names its tags' keys, never their values")
    func description() {
        let request = SumUpRequest(
            amount: Money(minorUnits: 100, currency: .eur),
            affiliateKey: "K",
            tags: ["customer": "Jane Roe", "table": "4"]
        )
        #expect(request.description.contains("tags: [customer, table]"))
        #expect(!request.description.contains("Jane"))
    }
}
