"""Reads the sandbox's SumUp transaction lookup with SumUp's official Python SDK (`sumup`), checks each answer
strictly against the SDK's models (conformance.check) and its values against what the test recorded, and prints
what it read as one JSON object.

Usage: python sumup_client.py '<JSON with base_url, token, merchant code and transactions>' (see
PythonClientTests.swift).
"""

import json
import sys

from conformance import Mismatch, Responses, check, expect, expect_equal, run
from sumup import Sumup
from sumup._exceptions import APIError
from sumup.types import Error, Problem, TransactionFull

GIVEN = json.loads(sys.argv[1])
RESPONSES = Responses()


def sdk(token):
    client = Sumup(api_key=token, base_url=GIVEN["base_url"], timeout=60)
    RESPONSES.install(client._client)
    return client


def read(call):
    """A transaction through the SDK, after a strict check of the answer's JSON against TransactionFull."""
    count = len(RESPONSES.answers)
    transaction = call()
    answers = RESPONSES.since(count)
    expect_equal(len(answers), 1, "requests sent")
    expect_equal(answers[0].status_code, 200, "the status")
    check(TransactionFull, answers[0].json(), "TransactionFull")
    expect(isinstance(transaction, TransactionFull), f"the SDK returned {type(transaction).__name__}")
    return transaction


def failure(call, model):
    """The APIError a lookup raises, its JSON checked strictly against `model`."""
    count = len(RESPONSES.answers)
    try:
        call()
    except APIError as error:
        answer = RESPONSES.since(count)[-1]
        check(model, answer.json(), model.__name__)
        return {
            "status": error.status, "body_type": type(error.body).__name__,
            "content_type": answer.headers.get("content-type"), "code": answer.json().get("error_code"),
        }
    raise Mismatch("the lookup succeeded where an error was expected")


def described(transaction):
    return {
        "id": transaction.id, "transaction_code": transaction.transaction_code, "amount": transaction.amount,
        "currency": transaction.currency, "status": transaction.status, "simple_status": transaction.simple_status,
        "foreign_transaction_id": transaction.foreign_transaction_id,
        "client_transaction_id": transaction.client_transaction_id, "merchant_code": transaction.merchant_code,
        "product_summary": transaction.product_summary,
        "timestamp": transaction.timestamp.isoformat() if transaction.timestamp else None,
    }


def main():
    merchant = GIVEN["merchant_code"]
    client = sdk(GIVEN["access_token"])
    result = {"by_foreign_id": {}, "by_id": {}, "by_code": {}, "by_client_id": {}}
    for item in GIVEN["transactions"]:
        found = read(lambda: client.transactions.get(merchant, foreign_transaction_id=item["foreign_transaction_id"]))
        result["by_foreign_id"][item["foreign_transaction_id"]] = described(found)
        result["by_id"][found.id] = described(read(lambda: client.transactions.get(merchant, id=found.id)))
        result["by_code"][found.transaction_code] = described(
            read(lambda: client.transactions.get(merchant, transaction_code=found.transaction_code))
        )
        if found.client_transaction_id:
            result["by_client_id"][found.client_transaction_id] = described(
                read(lambda: client.transactions.get(merchant, client_transaction_id=found.client_transaction_id))
            )
    first = GIVEN["transactions"][0]["foreign_transaction_id"]
    result["errors"] = {
        "not_found": failure(lambda: client.transactions.get(merchant, foreign_transaction_id="no-such-id"), Error),
        "other_merchant": failure(lambda: client.transactions.get("MOTHER000", foreign_transaction_id=first), Error),
        "wrong_token": failure(lambda: sdk("not-the-token").transactions.get(merchant, foreign_transaction_id=first), Problem),
        "two_keys": failure(
            lambda: client.transactions.get(merchant, foreign_transaction_id=first, transaction_code="TAAAAAAAAA"), Problem
        ),
        "no_key": failure(lambda: client.transactions.get(merchant), Problem),
    }

    # Refunds: part of a transaction, then the rest (no body); then one more is refused, as is an unknown one.
    refund = GIVEN["refund"]
    count = len(RESPONSES.answers)
    client.transactions.refund(merchant, refund["id"], amount=refund["part"])
    client.transactions.refund(merchant, refund["id"])
    statuses = [answer.status_code for answer in RESPONSES.since(count)]
    refunded = read(lambda: client.transactions.get(merchant, id=refund["id"]))
    result["refunds"] = {
        "statuses": statuses,
        "status": refunded.status,
        "events": [{"type": event.type, "status": event.status, "amount": event.amount} for event in refunded.events or []],
        "again": failure(lambda: client.transactions.refund(merchant, refund["id"], amount=1), Problem),
        "unknown": failure(lambda: client.transactions.refund(merchant, "no-such-transaction"), Problem),
    }
    return result


if __name__ == "__main__":
    run(main)
