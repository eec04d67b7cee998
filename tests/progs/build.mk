# Small static programs for the in-guest tests.
TEST_PROGS := fragmenter memchurn memhog runas hostile
GUEST_BINS += $(addprefix $(BUILD)/guest/bin/,$(TEST_PROGS))

$(BUILD)/guest/bin/%: $(TOP)/tests/progs/%.c | $(BUILD)/guest/bin
	$(CC) $(USER_CFLAGS) $(STATIC_LDFLAGS) -o $@ $<

# hostile runs threads
$(BUILD)/guest/bin/hostile: $(TOP)/tests/progs/hostile.c | $(BUILD)/guest/bin
	$(CC) $(USER_CFLAGS) $(STATIC_LDFLAGS) -o $@ $< -pthread
