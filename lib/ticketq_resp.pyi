# Deprecated name of ticketq.resp (one release).
from ticketq.resp import RespError as RespError
from ticketq.resp import MAX_BULK as MAX_BULK
from ticketq.resp import MAX_ITEMS as MAX_ITEMS
from ticketq.resp import MAX_DEPTH as MAX_DEPTH
from ticketq.resp import MAX_LINE as MAX_LINE
from ticketq.resp import Redis as Redis
