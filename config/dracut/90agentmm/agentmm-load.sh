#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# dracut pre-trigger hook (module 90agentmm): load agentmm.ko early with
# its modprobe.d options; agentmm.mode=off on the kernel command line still
# wins. Failure is not fatal: the root file system's modules-load.d tries
# again, and agentmmd's user-space governor covers a host without it.
modprobe -q agentmm 2>/dev/null || :
