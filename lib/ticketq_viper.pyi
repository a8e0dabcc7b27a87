# Deprecated name of ticketq.viper (one release).
from ticketq import PATH as PATH
from ticketq import TicketQueue as TicketQueue
from ticketq import WHY as WHY
from ticketq.viper import BytecodeQueue as BytecodeQueue  # no stub: viper.py is read
from ticketq.viper import selfcheck as selfcheck
