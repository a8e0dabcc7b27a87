# Deprecated name of ticketq.core (one release); ticketq.core has no stub: its source is read.
from ticketq.core import up as up
from ticketq.core import down as down
from ticketq.core import delete as delete
from ticketq.core import oldest as oldest
from ticketq.core import promote as promote
from ticketq.core import renumber as renumber
