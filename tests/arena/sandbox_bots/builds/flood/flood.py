"""A build that floods its output until the test says stop, then fails with a reason.

It writes how much it has sent to `sent` now and then, so the test knows the flood
is well past the log's cap; it stops when the test creates `stop`.
"""

import os
import sys

LINE = b"flood " * 1000 + b"\n"
out = sys.stdout.buffer
sent = 0
while not os.path.exists("stop"):
    for _ in range(256):
        out.write(LINE)
    sent += 256 * len(LINE)
    with open("sent.tmp", "w") as progress:
        progress.write(str(sent))
    os.replace("sent.tmp", "sent")
out.flush()
print(f"error: the reason it failed, after {sent} bytes", flush=True)
sys.exit(7)
