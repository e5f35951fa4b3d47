#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target into Fuzz/Corpus/<target>/seed-*.

Seeds are valid and nearly valid inputs: the Square SDK's test vectors (Tests/TenderTests/Fixtures), the vendor
samples quoted in the specs (shared/specs/*.md), URLs `tender` builds for each provider, and the Info.plist
fixtures. libFuzzer mutates from them, so it starts deep inside each parser instead of at its first check.
Run it from the repository root when the vectors or the wire formats change; it only adds and replaces seed-*
files, never the inputs `scripts/fuzz merge` folded in.
"""
import hashlib
import json
import os
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Fuzz", "Corpus")


def enc(text):
    """Percent-encodes as Tender does (RFC 3986 unreserved characters kept)."""
    return urllib.parse.quote(text, safe="-._~")


def write(target, seeds):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    for seed in seeds:
        data = seed if isinstance(seed, bytes) else seed.encode("utf-8")
        name = "seed-" + hashlib.sha1(data).hexdigest()[:16]
        with open(os.path.join(folder, name), "wb") as handle:
            handle.write(data)


vectors = json.load(open(os.path.join(ROOT, "Tests", "TenderTests", "Fixtures", "square-point-of-sale.json")))
square_requests = [v["example_url"] for v in vectors if v.get("example_url")]
square_callbacks = [v["input"]["url"] for v in vectors if v["kind"] == "response"]
square_callbacks += [
    "my-app://perform-callback/square_request?data=" + enc('{"status":"ok","transaction_id":"TX-1",'
                                                          '"client_transaction_id":"CL-1","state":"st"}'),
    "my-app://perform-callback?data=" + enc('{"status":"error","error_code":"payment_canceled","state":"st"}'),
    "my-app://cb?data=" + enc('{"status":"ok","payment_id":"P","offline_payment_id":"O"}') + "&data=x",
    # Known members of another JSON type, refused (issue 32).
    "my-app://cb?data=" + enc('{"status":"ok","transaction_id":123}'),
    "my-app://cb?data=" + enc('{"status":"ok","client_transaction_id":true,"state":null}'),
]
square_requests += [
    "square-commerce-v1://payment/create?data=" + enc(json.dumps({
        "sdk_version": "3.5.0", "version": "1.3", "client_id": "sq0idp-X",
        "amount_money": {"amount": 1250, "currency_code": "USD"},
        "callback_url": "my-app://done/square_request", "state": "st", "location_id": "L1", "notes": "Table 4",
        "customer_id": "C1", "options": {"supported_tender_types": ["CREDIT_CARD", "CASH", "OTHER", "SQUARE_GIFT_CARD",
                                                                    "CARD_ON_FILE"],
                                         "clear_default_fees": True, "auto_return": True, "disable_cnp": False,
                                         "skip_receipt": True}}, separators=(",", ":"), ensure_ascii=False)),
    "square-commerce-v1://payment/create?data=" + enc(json.dumps({
        "version": "1.1", "client_id": "sq0idp-X", "merchant_id": "M1",
        "amount_money": {"amount": 100, "currency_code": "JPY"}, "callback_url": "my-app://done",
        "options": {"supported_tender_types": ["CREDIT_CARD"]}}, separators=(",", ":"), ensure_ascii=False)),
]

swipe_requests = [
    "com-appninjas-iswipe://charge/1.0.0/?amount=10.99&email=john%40example.com&returnURL=com-companyname-demoapp"
    "%3A%2F%2Faction%2F&returnAppName=DemoApp",
    "com-appninjas-iswipe://charge/1.0.0/?amount=10.99&email=a%40b.c&firstName=Ann&invoiceNumber=INV-1&description="
    "Coffee%20%26%20cake&returnURL=my-app%3A%2F%2Fdone%3Forder%3D42&returnAppName=My%20App",
    "com-appninjas-iswipe://charge/1.0.0/?amount=5.00&returnURL=my-app%3A%2F%2Fdone&returnAppName=App&fm=1",
    "com-appninjas-iswipe://charge/1.0.0/?amount=1.00&lastName=Lee&address=1%20Main%20St&city=Columbus&state=OH"
    "&zip=43004&phone=555-0100&country=US",
]
swipe_callbacks = [
    "com-companyname-demoapp://action/?ifcc_responseType=approved&ifcc_amount=10.99&ifcc_redactedCardNumber="
    "XXXXXXXXXXXX1111&ifcc_cardType=Visa",
    "my-app://done?order=42&tender_token=tok&ifcc_responseType=approved&ifcc_amount=10.99&ifcc_redactedCardNumber="
    "XXXXXXXXXXXX4242&ifcc_cardType=MasterCard&ifcc_currency=USD&ifcc_transactionId=T-1&ifcc_taxAmount=0.80"
    "&ifcc_taxRate=8.5&ifcc_tipAmount=1.00",
    "my-app://done?%24ifcc_responseType=declined",
    "my-app://done?$ifcc_responseType=cancelled",
    "my-app://done?ifcc_responseType=$approved&ifcc_amount=$10.99&ifcc_redactedCardNumber=$XXXX1111"
    "&ifcc_cardType=$Amex",
    "my-app://done?ifcc_responseType=error",
]

softpos_sale = {"amount": 200, "type": "sale", "currency": "EUR", "responseUrl": "testapp://response"}
softpos_refund = {"amount": 200, "type": "refund", "originalTranId": "446655", "currency": "EUR",
                  "responseUrl": "testapp://response?x=1"}
softpos_requests = [
    "softpos://softpos/transaction?payload=" + enc(json.dumps(p, separators=(",", ":"), ensure_ascii=False))
    for p in (softpos_sale, softpos_refund)
]
softpos_results = [
    {"result": {"refusalCode": "00", "transactionId": "449333", "customMessage": {
        "f39": "000", "isoStan": "000206", "transactionTime": "211812", "transactionDate": "250209"}}},
    {"result": {"refusalCode": "105", "transactionId": "449334", "customMessage": {}}},
    {"error": {"description": "The operation couldn\u2019t be completed. (Softpos.SoftposReadError error 10.)",
               "softposReadError": "readCancelled",
               "errorDescription": "The operation couldn\u2019t be completed. (Softpos.SoftposReadError error 10.)"}},
    {"error": {"description": "Rejected", "transactionResult": {"refusalCode": "105", "transactionId": "1",
                                                                 "customMessage": {"f39": "105"}}}},
    {"error": {"description": "Failed", "softposError": {"internalErrorCode": 3, "errorCode": "12",
                                                          "errorSubCode": 1, "message": "host down"}}},
]
softpos_callbacks = [
    "testapp://response?tender_token=tok&result=" + enc(json.dumps(r, separators=(",", ":"), ensure_ascii=False)) for r in softpos_results
]
softpos_callbacks += [
    'testapp://response?result={"error":{"description":"The operation couldn\u2019t be completed.",'
    '"softposReadError":"readCancelled"}}',
    "testapp://response?error=" + enc('{"description":"Lenient","softposReadError":"cardRemoved"}'),
    # Documented strings sent as numbers, refused (issue 32).
    "testapp://response?result=" + enc('{"result":{"refusalCode":"00","transactionId":"1","customMessage":{"f39":0}}}'),
    "testapp://response?result=" + enc('{"error":{"description":"d","transactionResult":{"refusalCode":5}}}'),
]

sumup_requests = [
    "sumupmerchant://pay/1.0?amount=10.00&currency=EUR&affiliate-key=YOUR-AFFILIATE-KEY&title=Coffee%20beans"
    "&callbacksuccess=samplepaymentapp%3A%2F%2F&callbackfail=samplepaymentapp%3A%2F%2F&foreign-tx-id=order-123",
    "sumupmerchant://pay/1.0?amount=10.00&currency=EUR&affiliate-key=KEY-1&title=Coffee%20beans&callbacksuccess="
    "my-app%3A%2F%2Fok%3Fx%3D1&callbackfail=my-app%3A%2F%2Ffail&receipt-email=a%40b.c&foreign-tx-id=order-123"
    "&skip-screen-success=true",
    "sumupmerchant://pay/1.0?amount=1000&currency=JPY&affiliate-key=K&receipt-mobilephone=%2B4915100000",
    "SumUpMerchant://PAY/1.0?amount=4.5&currency=EUR&affiliate-key=K&callbackfail=my-app%3A%2F%2Ffail&title="
    "&skip-screen-success=TRUE&smpprtag-note=a%20b&smpprtag-table=4&smpprtag-=x",
]
sumup_callbacks = [
    "samplepaymentapp://?smp-status=success&smp-tx-code=TEENSK4W2K&foreign-tx-id=order-123",
    "my-app://ok?x=1&smp-status=failed&smp-message=Card%20declined&foreign-tx-id=order-123",
    "my-app://fail?smp-status=invalidstate&smp-message=Not%20logged%20in",
    "mycallbackscheme://result?smp-status=failed&smp-failure-cause=transaction-failed&smp-message=Transaction%20"
    "failed.&smp-receipt-sent=false&smp-tx-code=123ABC&foreign-tx-id=05c14c86-a7a0-49c5-a1ec-acb168f5198x",
    "my-app://ok?smp-status=success&smp-receipt-sent=&smp-tx-code=A1",
]

every_url = square_requests + square_callbacks + swipe_requests + swipe_callbacks + softpos_requests + \
    softpos_callbacks + sumup_requests + sumup_callbacks


def query_of(url):
    return url.split("?", 1)[1] if "?" in url else ""


write("square-callback", square_callbacks)
write("square-request", square_requests)
write("swipe-callback", swipe_callbacks)
write("swipe-request", swipe_requests)
write("softpos-callback", softpos_callbacks)
write("softpos-request", softpos_requests)
write("sumup-callback", sumup_callbacks)
write("sumup-request", sumup_requests)
write("detection", every_url)
write("query", [query_of(u) for u in every_url] + ["a=1&&b=2&flag&empty=&a=3", "%24ifcc_x=%C3%A9+%2B"])
write("percent-decoding", [query_of(u) for u in every_url] + ["%E2%82%AC%F0%9F%98%80", "%zz", "%C3", "100%"])
json_seeds = [json.dumps(r, separators=(",", ":"), ensure_ascii=False) for r in softpos_results] + [
    json.dumps(softpos_sale), json.dumps(softpos_refund),
    '{"status":"ok","transaction_id":"T","state":"s\\u00e9\\ud83d\\ude00\\n\\/"}',
    '[1,-0,0.5e-3,1E+2,true,false,null,"",[],{}]', '"text"', "-12.5", " \t\r\n{ } ",
]
write("json", json_seeds)
write("merchant-profile", [
    json.dumps({"application_ids": ["sq0idp-X"], "callback_urls": ["my-app://done"], "logged_in": True,
                "activated": True, "online": True, "unfinished_transaction": False, "location_id": "L1",
                "location_name": "Cafe", "currency": "USD", "app_version": "6.2"}),
    json.dumps({"application_ids": None, "currency": "EUR", "logged_in": False}), "{}",
])
plists = os.path.join(ROOT, "Tests", "TenderTests", "Fixtures", "InfoPlist")
write("info-plist", [open(os.path.join(plists, name), "rb").read() for name in sorted(os.listdir(plists))])

# The hand-off target replaces @SQUARE@, @SWIPE@, @SOFTPOS@, @SUMUP@ by the live token of that provider's pending
# payment (Fuzz/Harness/HandoffTarget.swift); its payments are 10.99 USD (Square, Swipe) and 10.99 EUR.
write("handoff-callback", [
    "tender-fuzz://square/square_request?data=" + enc('{"status":"ok","transaction_id":"TX-1","state":"@SQUARE@"}'),
    "tender-fuzz://square/square_request?data=" + enc('{"status":"error","error_code":"payment_canceled",'
                                                      '"state":"@SQUARE@"}'),
    "tender-fuzz://swipe?tender_token=@SWIPE@&ifcc_responseType=approved&ifcc_amount=10.99"
    "&ifcc_redactedCardNumber=XXXXXXXXXXXX1111&ifcc_cardType=Visa",
    "tender-fuzz://swipe?tender_token=@SWIPE@&ifcc_responseType=declined",
    "tender-fuzz://softpos?tender_token=@SOFTPOS@&result=" + enc(json.dumps(softpos_results[0], separators=(",", ":"), ensure_ascii=False)),
    "tender-fuzz://softpos?tender_token=@SOFTPOS@&result=" + enc(json.dumps(softpos_results[2], separators=(",", ":"), ensure_ascii=False)),
    "tender-fuzz://sumup?smp-status=success&smp-tx-code=TX1&foreign-tx-id=@SUMUP@",
    "tender-fuzz://sumup?smp-status=failed&foreign-tx-id=@SUMUP@&smp-message=declined",
    "tender-fuzz://swipe?tender_token=@SQUARE@&ifcc_responseType=approved&ifcc_amount=99.99",
    "tender-fuzz://square/square_request?data=" + enc('{"status":"ok","state":"forged-token"}'),
    "tender-fuzz://swipe?tender_token=AAAAAAAAAAAAAAAAAAAAAA&ifcc_responseType=approved&ifcc_amount=10.99",
] + square_callbacks[:4] + swipe_callbacks[:2] + softpos_callbacks[:2] + sumup_callbacks[:2])
