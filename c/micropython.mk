# ticketq's C core as a user C module (make-based ports: unix, qemu, stm32 ...):
#   make USER_C_MODULES=/path/to/ticketq    (the repository root: this folder is c/)
# The same c/ticketq_core.c as the native .mpy (c/Makefile); docs/c-core.md.
TICKETQ_MOD_DIR := $(USERMOD_DIR)
SRC_USERMOD_C += $(TICKETQ_MOD_DIR)/ticketq_core.c
CFLAGS_USERMOD += -I$(TICKETQ_MOD_DIR)
