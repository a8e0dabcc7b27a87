# ticketq's C core as a user C module (CMake-based ports: rp2, esp32):
#   make USER_C_MODULES=/path/to/ticketq/c/micropython.cmake
# The same c/ticketq_core.c as the native .mpy (c/Makefile); docs/c-core.md.
add_library(usermod_ticketq INTERFACE)
target_sources(usermod_ticketq INTERFACE ${CMAKE_CURRENT_LIST_DIR}/ticketq_core.c)
target_include_directories(usermod_ticketq INTERFACE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(usermod INTERFACE usermod_ticketq)
