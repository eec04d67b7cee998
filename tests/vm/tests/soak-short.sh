# The soak (tests/vm/soak.sh) for 75 s: sandboxes churning, agentmmd
# SIGKILLed and SIGSTOPped, agentmm's mode flipped, a hostile tenant churning
# names and PIDs; nothing left frozen or throttled, no journal entry lost,
# THP knobs as the admin left them, nothing of the tenant's reaching an
# operator's terminal or a root service. `make soak` runs it for 30 minutes.
SOAK_SECONDS=${SOAK_SECONDS:-75}
. /tests/soak.sh
