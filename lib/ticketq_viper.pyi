# Deprecated name of ticketq.viper (one release).
from ticketq.viper import BytecodeQueue as BytecodeQueue
from ticketq.viper import promote as promote
from ticketq.viper import renumber as renumber
from ticketq.viper import PATH as PATH
from ticketq.viper import TicketQueue as TicketQueue
from ticketq.viper import selfcheck as selfcheck
from ticketq.viper import WHY as WHY
