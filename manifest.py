# Freeze ticketq into a MicroPython firmware image: in a board's manifest,
#   include("path/to/ticketq/manifest.py")
# Frozen modules are compiled on the host and live in flash: no RAM for the source,
# the parse or the bytecode (the way to fit the library on the smallest boards).
metadata(
    version="0.1.0",
    description="Clock-free, preallocated priority queue of integer job tickets.",
    license="MIT",
)
module("ticketq.py", base_path="lib")
module("ticketq_async.py", base_path="lib")
module("ticketq_audit.py", base_path="lib")
module("ticketq_base.py", base_path="lib")
module("ticketq_deadline.py", base_path="lib")
module("ticketq_fleet.py", base_path="lib")
module("ticketq_fleetlanes.py", base_path="lib")
module("ticketq_heap.py", base_path="lib")
module("ticketq_lanes.py", base_path="lib")
module("ticketq_resp.py", base_path="lib")
module("ticketq_softticks.py", base_path="lib")
module("ticketq_ticks.py", base_path="lib")
module("ticketq_wait.py", base_path="lib")
