# SPDX-License-Identifier: GPL-2.0-only
# agentmm.ko cross-built for the kernels of other architectures listed in
# tests/vm/kernel-cross (arm64 with 4K and with 16K base pages; Debian's
# headers, fetched by make deps), each in a copy under build/cross/KVER.
#
#   make module-cross    build them: build/cross/KVER/agentmm.ko, and
#                        agentmmd for each architecture in
#                        build/cross/ARCH-user/guest/bin
#   make cross-check     build them and check each (tests/cross/run): no
#                        warning, modpost finds every symbol in that
#                        kernel's exports, the ELF is the architecture's,
#                        vermagic and base page size are the kernel's; then
#                        agentmmd, agentmmctl and the unit tests built for
#                        each architecture and run under qemu-user
.PHONY: module-cross cross-check
module-cross cross-check:
	$(TOP)/tests/cross/run $(if $(filter module-cross,$@),--build-only)
