"""Reads the webhooks the sandbox posted with Square's official Python SDK (`squareup`): each body strictly against
its event model (PaymentCreatedEvent, PaymentUpdatedEvent, OrderCreatedEvent, OrderUpdatedEvent, RefundCreatedEvent,
RefundUpdatedEvent, through
conformance.check), and each signature with `square.utils.webhooks_helper.verify_signature` (Square's "Validate that
the notification is from Square"). Prints one JSON object: per event its type, event_id, data id, the payment's
order_id when it has one, and whether the signature verified with the right key and with a wrong one.

Usage: python square_webhooks.py '{"notification_url": …, "signature_key": …, "events": [{"body": …, "signature": …}]}'
"""

import json
import sys

from square.types.order_created_event import OrderCreatedEvent
from square.types.order_updated_event import OrderUpdatedEvent
from square.types.payment_created_event import PaymentCreatedEvent
from square.types.payment_updated_event import PaymentUpdatedEvent
from square.types.refund_created_event import RefundCreatedEvent
from square.types.refund_updated_event import RefundUpdatedEvent
from square.utils.webhooks_helper import verify_signature

import conformance

MODELS = {
    "payment.created": PaymentCreatedEvent,
    "payment.updated": PaymentUpdatedEvent,
    "order.created": OrderCreatedEvent,
    "order.updated": OrderUpdatedEvent,
    "refund.created": RefundCreatedEvent,
    "refund.updated": RefundUpdatedEvent,
}


def main():
    given = json.loads(sys.argv[1])
    read = []
    for event in given["events"]:
        body = json.loads(event["body"])
        model = MODELS[body["type"]]
        conformance.check(model, body, "$" + body["type"])
        parsed = model.model_validate(body)
        payment = getattr(parsed.data.object, "payment", None) if parsed.data and parsed.data.object else None
        refund = getattr(parsed.data.object, "refund", None) if parsed.data and parsed.data.object else None
        read.append(
            {
                "type": parsed.type,
                "event_id": parsed.event_id,
                "data_type": parsed.data.type,
                "data_id": parsed.data.id,
                "order_id": payment.order_id if payment else None,
                "refund_status": refund.status if refund else None,
                "refund_payment_id": refund.payment_id if refund else None,
                "refund_ids": payment.refund_ids if payment else None,
                "verified": verify_signature(
                    request_body=event["body"],
                    signature_header=event["signature"],
                    signature_key=given["signature_key"],
                    notification_url=given["notification_url"],
                ),
                "verified_with_wrong_key": verify_signature(
                    request_body=event["body"],
                    signature_header=event["signature"],
                    signature_key=given["signature_key"] + "x",
                    notification_url=given["notification_url"],
                ),
            }
        )
    print(json.dumps({"events": read}))


if __name__ == "__main__":
    try:
        main()
    except conformance.Mismatch as mismatch:
        print(f"mismatch: {mismatch}", file=sys.stderr)
        sys.exit(1)
