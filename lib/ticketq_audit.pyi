# Deprecated name of ticketq.audit (one release).
from ticketq.audit import Trace as Trace
from ticketq.audit import tickets as tickets
from ticketq.audit import explain as explain
from ticketq.audit import max_wait as max_wait
from ticketq.audit import lane_max_wait as lane_max_wait
