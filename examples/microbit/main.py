# main.py for the BBC micro:bit v1 (MicroPython 1.9.2): the library first, then the
# application. Keep it so (docs/microbit.md, "Starting an application at boot (stock firmware)"): any other
# module by __import__ and a name of more than 10 characters, so that compiling this file
# adds no name before ticketq is in.
import ticketq
__import__("application")
