"""Reads every Square endpoint the sandbox serves with Square's official Python SDK (`squareup`), checks each answer
strictly against the SDK's models (conformance.check) and its values against what the test recorded, and prints
what it read as one JSON object.

Usage: python square_client.py '<JSON with base_url, tokens, IDs and amounts>' (see PythonClientTests.swift).
"""

import datetime
import json
import sys

import httpx
from conformance import Mismatch, Responses, check, expect, expect_equal, run
from square import Square
from square.core.api_error import ApiError
from square.types.batch_get_orders_response import BatchGetOrdersResponse
from square.types.error import Error
from square.types.get_location_response import GetLocationResponse
from square.types.get_order_response import GetOrderResponse
from square.types.get_payment_refund_response import GetPaymentRefundResponse
from square.types.get_payment_response import GetPaymentResponse
from square.types.list_payment_refunds_response import ListPaymentRefundsResponse
from square.types.list_locations_response import ListLocationsResponse
from square.types.list_payments_response import ListPaymentsResponse
from square.types.obtain_token_response import ObtainTokenResponse
from square.types.refund_payment_response import RefundPaymentResponse
from square.types.retrieve_token_status_response import RetrieveTokenStatusResponse
from square.types.revoke_token_response import RevokeTokenResponse

SDK_VERSION = "2026-09-16"  # the Square-Version squareup 46.0.0.20260916 sends


RESPONSES = Responses()


def sdk(**options):
    """Square's client, every answer it receives kept for a strict check."""
    return Square(base_url=BASE, httpx_client=RESPONSES.install(httpx.Client(timeout=60)), **options)


def read(model, call):
    """Calls an endpoint through the SDK: its typed result, after a strict check of every answer's JSON."""
    count = len(RESPONSES.answers)
    data = call()
    answers = RESPONSES.since(count)
    expect(answers, "the SDK sent no request")
    for answer in answers:
        expect_equal(answer.status_code, 200, f"{answer.request.method} {answer.request.url.path}")
        check(model, answer.json(), model.__name__)
        expect_equal(answer.headers.get("square-version"), SDK_VERSION, "the Square-Version answered")
    return data


def api_error(call):
    """The ApiError an endpoint raises, its body checked as Square's error list."""
    try:
        call()
    except ApiError as error:
        expect(isinstance(error.body, dict) and isinstance(error.body.get("errors"), list), f"error body {error.body!r}")
        for index, item in enumerate(error.body["errors"]):
            check(Error, item, f"errors[{index}]")
        return error
    raise Mismatch("the call succeeded where an error was expected")


def money(value):
    return {"amount": value.amount, "currency": value.currency}


GIVEN = json.loads(sys.argv[1])
BASE = GIVEN["base_url"]


def main():
    given = GIVEN
    client = sdk(token=given["access_token"])
    result = {}

    # Locations: ListLocations and RetrieveLocation (by ID and as "main") give the same Location object.
    listed = read(ListLocationsResponse, client.locations.list)
    expect_equal([location.id for location in listed.locations], [given["location_id"]], "the listed locations")
    by_id = read(GetLocationResponse, lambda: client.locations.get(given["location_id"]))
    main_location = read(GetLocationResponse, lambda: client.locations.get("main"))
    expect_equal(by_id.location, listed.locations[0], "RetrieveLocation against ListLocations")
    expect_equal(main_location.location, by_id.location, "RetrieveLocation main")
    location = by_id.location
    result["location"] = {
        "id": location.id, "status": location.status, "currency": location.currency, "country": location.country,
        "merchant_id": location.merchant_id, "capabilities": location.capabilities,
    }

    # RetrieveTokenStatus.
    status = read(RetrieveTokenStatusResponse, client.o_auth.retrieve_token_status)
    result["token_status"] = {"scopes": status.scopes, "merchant_id": status.merchant_id, "client_id": status.client_id}

    # RetrieveOrder: the card payment's order, its tender the payment.
    card = given["card"]
    order = read(GetOrderResponse, lambda: client.orders.get(card["order_id"])).order
    tender = order.tenders[0]
    result["order"] = {
        "id": order.id, "location_id": order.location_id, "state": order.state, "total": money(order.total_money),
        "tenders": [
            {
                "id": item.id, "type": item.type, "payment_id": item.payment_id, "amount": money(item.amount_money),
                "card_status": item.card_details.status if item.card_details else None,
            }
            for item in order.tenders
        ],
    }
    expect_equal(tender.id, tender.payment_id, "the tender's ID and its payment ID")

    # BatchRetrieveOrders: the two orders, an unknown ID left out.
    batch = read(
        BatchGetOrdersResponse,
        lambda: client.orders.batch_get(
            order_ids=[card["order_id"], given["second_order_id"], "UNKNOWN0ORDER"], location_id=given["location_id"]
        ),
    )
    result["batch_order_ids"] = sorted(item.id for item in batch.orders)

    # GetPayment: the card payment, the cash payment (no order), the offline payment.
    payments = {}
    for name in ("card", "cash", "offline"):
        payment = read(GetPaymentResponse, lambda: client.payments.get(given[name]["payment_id"]))
        payment = payment.payment
        payments[name] = {
            "id": payment.id, "status": payment.status, "amount": money(payment.amount_money),
            "total": money(payment.total_money), "location_id": payment.location_id, "order_id": payment.order_id,
            "source_type": payment.source_type, "is_offline_payment": payment.is_offline_payment,
            "card_status": payment.card_details.status if payment.card_details else None,
            "card_last4": payment.card_details.card.last4 if payment.card_details else None,
            "cash_supplied": money(payment.cash_details.buyer_supplied_money) if payment.cash_details else None,
            "created_at": payment.created_at,
        }
        # created_at is RFC 3339 with milliseconds, as Square writes it.
        datetime.datetime.fromisoformat(payment.created_at.replace("Z", "+00:00"))
    result["payments"] = payments

    # ListPayments: every page through the SDK's pager, each page checked strictly.
    listing = given["list"]
    query = {
        "location_id": given["location_id"], "total": listing["total"], "begin_time": listing["begin_time"],
        "end_time": listing["end_time"], "limit": listing["limit"],
    }
    pages = read(ListPaymentsResponse, lambda: [[item.id for item in page.items or []] for page in client.payments.list(**query).iter_pages()])
    created = [item.created_at for item in read(ListPaymentsResponse, lambda: list(client.payments.list(**query)))]
    expect_equal(created, sorted(created, reverse=True), "ListPayments' default order, newest first")
    ascending = [item.created_at for item in read(ListPaymentsResponse, lambda: list(client.payments.list(sort_order="ASC", **query)))]
    expect_equal(ascending, sorted(created), "ListPayments with sort_order ASC")
    result["list_pages"] = pages
    # Without location_id: the main location; a limit above 100 is ignored for Square's 100 a page.
    result["list_default_pages"] = read(
        ListPaymentsResponse,
        lambda: [len(page.items or []) for page in client.payments.list(total=listing["page_size_total"], limit=500).iter_pages()],
    )

    # Errors, as Square writes them.
    missing = api_error(lambda: client.orders.get("UNKNOWN0ORDER"))
    narrow = sdk(token=given["narrow_token"])
    no_orders_scope = api_error(lambda: narrow.orders.get(card["order_id"]))
    no_payments_scope = api_error(lambda: narrow.payments.get(given["card"]["payment_id"]))
    unknown_token = api_error(lambda: sdk(token="EAAAnot-a-token").payments.get("X"))
    bad_version = api_error(lambda: sdk(token=given["access_token"], version="2026-13-45").locations.list())
    bad_cursor = api_error(lambda: client.payments.list(cursor="not-a-cursor"))
    result["errors"] = {
        name: {"status": error.status_code, "code": error.errors[0].code, "detail": error.errors[0].detail}
        for name, error in [
            ("not_found", missing), ("orders_scope", no_orders_scope), ("payments_scope", no_payments_scope),
            ("unknown_token", unknown_token), ("bad_version", bad_version), ("bad_cursor", bad_cursor),
        ]
    }

    # Refunds: RefundPayment of part of a payment, the same request again (the same refund), GetPaymentRefund,
    # ListPaymentRefunds, the key reused for another amount, more than remains; the payment then lists its refund.
    refunded = given["refund"]["payment_id"]
    part = {"amount": given["refund"]["amount"], "currency": "USD"}

    def refund(key, amount):
        return client.refunds.refund_payment(idempotency_key=key, payment_id=refunded, amount_money=amount, reason="py")

    made = read(RefundPaymentResponse, lambda: refund("py-refund-1", part))
    again = read(RefundPaymentResponse, lambda: refund("py-refund-1", part))
    fetched = read(GetPaymentRefundResponse, lambda: client.refunds.get(made.refund.id))
    listed = read(ListPaymentRefundsResponse, lambda: [item.id for item in client.refunds.list()])
    reused = api_error(lambda: refund("py-refund-1", {"amount": part["amount"] + 1, "currency": "USD"}))
    too_much = api_error(lambda: refund("py-refund-2", {"amount": 1_000_000, "currency": "USD"}))
    after = read(GetPaymentResponse, lambda: client.payments.get(refunded)).payment
    result["refunds"] = {
        "made": {"id": made.refund.id, "status": made.refund.status, "amount": money(made.refund.amount_money),
                 "payment_id": made.refund.payment_id, "reason": made.refund.reason},
        "again_id": again.refund.id,
        "fetched": {"id": fetched.refund.id, "status": fetched.refund.status},
        "listed": listed,
        "reused": reused.errors[0].code,
        "too_much": too_much.errors[0].code,
        "payment": {"refund_ids": after.refund_ids, "refunded_money": money(after.refunded_money)},
    }

    # ObtainToken with a refresh token: fewer scopes, short-lived. Then RevokeToken of that access token alone.
    anonymous = sdk(token=None)
    obtained = read(
        ObtainTokenResponse,
        lambda: anonymous.o_auth.obtain_token(
            client_id=given["client_id"], grant_type="refresh_token", refresh_token=given["refresh_token"],
            scopes=["PAYMENTS_READ", "ORDERS_READ", "CUSTOMERS_READ"], short_lived=True,
        ),
    )
    short = sdk(token=obtained.access_token)
    short_status = short.o_auth.retrieve_token_status()
    expires_at = datetime.datetime.fromisoformat(obtained.expires_at.replace("Z", "+00:00"))
    result["obtained"] = {
        "short_lived": obtained.short_lived, "token_type": obtained.token_type, "merchant_id": obtained.merchant_id,
        "scopes": short_status.scopes, "rotated": obtained.refresh_token != given["refresh_token"],
        "lifetime_hours": round((expires_at - datetime.datetime.now(datetime.timezone.utc)).total_seconds() / 3600),
    }
    application = sdk(token=None, headers={"Authorization": "Client " + given["client_secret"]})
    revoked = read(
        RevokeTokenResponse,
        lambda: application.o_auth.revoke_token(
            client_id=given["client_id"], access_token=obtained.access_token, revoke_only_access_token=True
        ),
    )
    after = api_error(short.o_auth.retrieve_token_status)
    still = client.o_auth.retrieve_token_status()
    result["revoked"] = {
        "success": revoked.success, "revoked_code": after.errors[0].code, "others_still_valid": still.merchant_id is not None,
    }
    return result


if __name__ == "__main__":
    run(main)
