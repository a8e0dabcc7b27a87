# Host only: the producer and consumer processes of the fleet concurrency and fault tests
# (test_fleet_concurrency.py, test_fleet_faults.py), each its own process with its own
# connection, as boards and gateways are.
#
#   python tests/fleet_procs.py produce PORT QUEUE CLIENT P COUNT
#       pushes COUNT tickets, ids P*100000 + k, classes k % 4; on QueueFull waits 5 ms and
#       tries again (backpressure); prints "pushed <id> <class> <seq>" per ticket, then
#       "refused <n>" (pushes refused as full).
#   python tests/fleet_procs.py consume PORT QUEUE CLIENT LEASE_MS IDLE_MS
#       pop_until with leases, acks each ticket; stops after IDLE_MS without work; prints
#       "got <id> <class> <seq> <pop number> <deliveries> <acked 0/1>" per ticket.
#   python tests/fleet_procs.py hold PORT QUEUE CLIENT LEASE_MS
#       leases one ticket, prints "holding <id> <seq>", then sleeps (to be SIGKILLed mid-job).
# CLIENT is redis-py or resp (lib/tqresp.py, the board client).
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "lib")]

from ticketq import QueueFull  # noqa: E402
from ticketq.ticks import Deadline  # noqa: E402
from ticketq.fleet import FleetQueue  # noqa: E402
from ticketq.ticks import Timeout  # noqa: E402


def connect(port, kind):
    if kind == "resp":
        import ticketq.resp as tqresp

        return tqresp.Redis("127.0.0.1", port)
    import redis

    return redis.Redis(port=port)


def say(*words):
    print(" ".join(str(w) for w in words), flush=True)


def produce(q, p, count):
    refused = 0
    for k in range(count):
        i = p * 100000 + k
        while True:
            try:
                s = q.push(i, k % 4)
                break
            except QueueFull:
                refused += 1
                time.sleep(0.005)
        say("pushed", i, k % 4, s)
    say("refused", refused)


def consume(q, lease_ms, idle_ms):
    d = Deadline(None)
    while True:
        d.rearm(idle_ms)
        try:
            i = q.pop_until(d, lease_ms)
        except Timeout:
            return
        ok = q.ack(q.last_lease)
        say("got", i, q.last_priority, q.last_seq, q.last_pop, q.last_deliveries, int(ok))


def hold(q, lease_ms):
    i = q.pop(lease_ms)
    say("holding", i, q.last_seq)
    time.sleep(3600)


def main(argv):
    role, port, name, kind = argv[0], int(argv[1]), argv[2], argv[3]
    q = FleetQueue(connect(port, kind), name)
    if role == "produce":
        produce(q, int(argv[4]), int(argv[5]))
    elif role == "consume":
        consume(q, int(argv[4]), int(argv[5]))
    elif role == "hold":
        hold(q, int(argv[4]))
    else:
        raise SystemExit("unknown role %s" % role)


if __name__ == "__main__":
    main(sys.argv[1:])
