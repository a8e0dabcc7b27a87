# Deprecated name of ticketq.core (one release).
from ticketq.core import delete as delete
from ticketq.core import oldest as oldest
from ticketq.core import QueueFull as QueueFull
from ticketq.core import QueueEmpty as QueueEmpty
from ticketq.core import QueueBase as QueueBase
