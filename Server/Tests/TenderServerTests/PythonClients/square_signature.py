"""Checks webhook signatures with Square's official Python SDK (`squareup`): its
`square.utils.webhooks_helper.verify_signature`, Square's "Validate that the notification is from Square". Prints one
JSON object: for each event, whether its signature verified with the subscription's key and URL, with a wrong key, and
with another URL.

Usage: python square_signature.py '{"notification_url": …, "signature_key": …, "events": [{"body": …, "signature": …}]}'
"""

import json
import sys

from square.utils.webhooks_helper import verify_signature


def main():
    given = json.loads(sys.argv[1])
    read = []
    for event in given["events"]:
        def verified(key, url):
            return verify_signature(
                request_body=event["body"],
                signature_header=event["signature"],
                signature_key=key,
                notification_url=url,
            )

        read.append(
            {
                "verified": verified(given["signature_key"], given["notification_url"]),
                "verified_with_wrong_key": verified(given["signature_key"] + "x", given["notification_url"]),
                "verified_with_another_url": verified(given["signature_key"], given["notification_url"] + "/"),
            }
        )
    print(json.dumps({"events": read}))


if __name__ == "__main__":
    main()
