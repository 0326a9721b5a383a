"""A bot without gRPC: JSON lines on stdin and stdout, as the bridge speaks them.

JSONL_MODE picks its behaviour: "play" answers legally, "garbage" answers
with a line that is not JSON.
"""

import json
import os
import sys

MODE = os.environ.get("JSONL_MODE", "play")

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] != "request":
        continue
    if MODE == "garbage":
        print("this is not json", flush=True)
        continue
    if message["kind"] == "calza_offer":
        answer = {"action": "pass"}
    elif message["dudo_allowed"] and len(message["bids"]) >= 2:
        answer = {"action": "dudo"}
    else:
        floors = message["min_count"]
        face = max(f for f in range(1, 7) if floors[f - 1])
        answer = {"action": "bid", "count": floors[face - 1], "face": face}
    print(json.dumps({"request_id": message["request_id"], **answer}), flush=True)
