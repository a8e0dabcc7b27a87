# Deprecated name of ticketq.core (one release).
from ticketq import QueueFull as QueueFull
from ticketq import QueueEmpty as QueueEmpty
from ticketq.core import QueueBase as QueueBase
from ticketq.core import delete as delete
from ticketq.core import oldest as oldest
