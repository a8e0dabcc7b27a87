# ticketq.sentinel: the board client (ticketq.resp.Redis) that finds the primary through
# Redis Sentinel, for boards with sockets; kept out of ticketq.resp so that a board that
# talks to one server does not compile it (ticketq.resp must import under a 64 KiB heap).
"""ticketq.sentinel: ``Redis(sentinels, service)``, a ticketq.resp.Redis whose every
(re)connection asks Redis Sentinel for the primary, so that a FleetQueue on a board finds
the new primary after a failover (docs/fleet.md, "Failover").

    from ticketq.sentinel import Redis
    conn = Redis([("10.0.0.5", 26379), ("10.0.0.6", 26379)], "mymaster", password="...")
    q = FleetQueue(conn, "jobs")

Connecting: asks the sentinels in turn ``SENTINEL get-master-addr-by-name service``,
connects to the first address named (AUTH and SELECT as ticketq.resp.Redis does) and
checks that it answers ``ROLE`` master; while none does (a failover under way: the old
primary gone, or not yet demoted) it asks again every 0.2 s for up to ``timeout`` seconds,
then raises OSError naming the last reason. A ``READONLY`` error reply (a primary demoted
under this connection; the command was refused, it did not run) closes the connection and
raises OSError, so FleetQueue sends the call again and the next connection asks the
sentinels. The sentinels are asked without a password. Everything else is ticketq.resp's.
"""
import ticketq.resp as _resp


def _pause():
    # 0.2 s between rounds of asking the sentinels
    try:
        from time import sleep_ms
        sleep_ms(200)
    except ImportError:  # CPython
        from time import sleep
        sleep(0.2)


class Redis(_resp.Redis):
    """ticketq.resp.Redis of the primary that the sentinels name (see the module)."""

    def __init__(self, sentinels, service, timeout=10, password=None, db=0, username=None, **kw):
        """sentinels: a non-empty list of (host, port); service: the master's name they
        monitor (ValueError otherwise). The other arguments: ticketq.resp.Redis's (its host
        and port are the primary's, found at each connection).
        """
        if not sentinels or type(service) is not str or not service:
            raise ValueError("sentinels: a list of (host, port); service: the master's name")
        _resp.Redis.__init__(self, "127.0.0.1", 0, timeout, password, db, username, **kw)
        self.sentinels = [(str(h), int(p)) for h, p in sentinels]
        self.service = service

    def connect(self):
        """Connect to the primary the sentinels name (ROLE master), asking again for up to
        ``timeout`` s. OSError if none is found.
        """
        rounds = int(self.timeout * 5) + 1
        why = "no sentinel answered"
        for r in range(rounds):
            for h, p in self.sentinels:
                c = _resp.Redis(h, p, min(self.timeout, 2))
                try:
                    a = c.execute_command("SENTINEL", "get-master-addr-by-name", self.service)
                except (OSError, _resp.RespError) as e:
                    why = "sentinel %s:%d: %s" % (h, p, e)
                    continue
                finally:
                    c.close()
                if not a:
                    why = "sentinel %s:%d knows no master %s" % (h, p, self.service)
                    continue
                self.host = a[0].decode()
                self.port = int(a[1])
                try:
                    _resp.Redis.connect(self)
                    role = self._command(("ROLE",))
                except (OSError, _resp.RespError) as e:
                    self.close()
                    why = "%s:%d: %s" % (self.host, self.port, e)
                    continue
                if role and role[0] == b"master":
                    return
                self.close()
                why = "%s:%d is not the master (a failover under way)" % (self.host, self.port)
            if r + 1 < rounds:
                _pause()
        raise OSError("redis connection: no master for %s: %s" % (self.service, why))

    def _send(self, data, n=0):
        try:
            out = _resp.Redis._send(self, data, n)
        except _resp.RespError as e:
            self._demoted(e)
            raise
        if n:
            for x in out:
                if isinstance(x, _resp.RespError):
                    self._demoted(x)
        return out

    def _demoted(self, e):
        # READONLY: the primary was demoted under this connection; the command did not run
        if str(e).startswith("READONLY"):
            self.close()
            raise OSError("redis connection: %s:%d is a replica now: %s" % (self.host, self.port, e))
