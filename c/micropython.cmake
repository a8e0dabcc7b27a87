# ticketq's C core (c/ticketq_core.c) as a user C module of a CMake port (the rp2 port:
# `tools/firmware rp2 --user-c-module c/micropython.cmake`, i.e. -DUSER_C_MODULES=...), as
# MicroPython's examples/usercmodule/cexample: the module _ticketq built into the firmware.
add_library(usermod_ticketq INTERFACE)
target_sources(usermod_ticketq INTERFACE ${CMAKE_CURRENT_LIST_DIR}/ticketq_core.c)
target_include_directories(usermod_ticketq INTERFACE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(usermod INTERFACE usermod_ticketq)
