"""Reads tender-server's /metrics with Prometheus' own Python client (`prometheus_client`): its text-format parser,
`prometheus_client.parser.text_string_to_metric_families`, which refuses text that breaks the exposition format.
Prints one JSON object: each family's name, type and help, and each sample's name, labels and value.

Usage: python prometheus_parse.py < metrics.txt
"""

import json
import sys

from prometheus_client.parser import text_string_to_metric_families


def main():
    families = []
    for family in text_string_to_metric_families(sys.stdin.read()):
        families.append(
            {
                "name": family.name,
                "type": family.type,
                "help": family.documentation,
                "samples": [
                    {"name": sample.name, "labels": sample.labels, "value": sample.value}
                    for sample in family.samples
                ],
            }
        )
    print(json.dumps({"families": families}))


if __name__ == "__main__":
    main()
