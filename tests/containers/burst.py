# SPDX-License-Identifier: GPL-2.0
# A bursting tool call (make container-check): grows by 32 MB every 50 ms
# up to MB (argv[1]), touching every page, then holds it for a minute.
import sys, time
held, mb = [], int(sys.argv[1])
while len(held) * 32 < mb:
    held.append(bytearray(b"t" * (32 << 20)))
    time.sleep(0.05)
time.sleep(60)
