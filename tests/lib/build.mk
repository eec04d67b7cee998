# SPDX-License-Identifier: GPL-2.0
# The shell test library's own test (tests/lib/selftest.sh) runs with make unit.
UNIT_TESTS += $(TOP)/tests/lib/selftest.sh
