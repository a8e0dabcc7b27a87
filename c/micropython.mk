# ticketq's C core (c/ticketq_core.c) as a user C module of a make-based port (USER_C_MODULES,
# as MicroPython's examples/usercmodule/cexample): the module _ticketq built into the firmware.
# tools/mcu.py (the QEMU targets) and tools/firmware unix build with it: docs/c-core.md.
TICKETQ_MOD_DIR := $(USERMOD_DIR)
SRC_USERMOD_C += $(TICKETQ_MOD_DIR)/ticketq_core.c
CFLAGS_USERMOD += -I$(TICKETQ_MOD_DIR)
