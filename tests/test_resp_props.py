# Property tests (CPython only: imports hypothesis, so mprun reports it as skipped on
# MicroPython) of ticketq.resp's reply parser against a model of RESP2 and of its limits
# (ticketq/resp.pyi): any reply within the limits reads back as what was sent, any reply over
# one is refused with OSError and the connection closed, and arbitrary bytes from a hostile
# server never raise anything but RespError or OSError. Deterministic hostile replies, run on
# the unix port too, are test_resp_stream's.
from hypothesis import HealthCheck, given, settings, strategies as st

import test_resp_stream as t

text = st.binary(max_size=40).filter(lambda b: b"\r" not in b and b"\n" not in b)
leaf = st.one_of(
    st.tuples(st.just("+"), text),
    st.tuples(st.just("-"), text.map(lambda b: b.decode("latin-1").encode()).filter(
        lambda b: b"\r" not in b and b"\n" not in b)),
    st.tuples(st.just(":"), st.integers(-(2 ** 70), 2 ** 70)),
    st.tuples(st.just("$"), st.one_of(st.none(), st.binary(max_size=60))),
)
values = st.recursive(leaf, lambda inner: st.tuples(st.just("*"), st.one_of(
    st.none(), st.lists(inner, max_size=6))), max_leaves=30)
limits = st.fixed_dictionaries({"max_bulk": st.integers(0, 200), "max_items": st.integers(0, 20),
                                "max_depth": st.integers(0, 4), "max_line": st.integers(2, 40)})


def encode(v):
    k, x = v
    if k in "+-":
        return k.encode() + x + b"\r\n"
    if k == ":":
        return b":%d\r\n" % x
    if k == "$":
        return b"$-1\r\n" if x is None else b"$%d\r\n%s\r\n" % (len(x), x)
    if x is None:
        return b"*-1\r\n"
    return b"*%d\r\n" % len(x) + b"".join(encode(e) for e in x)


class Over(Exception):
    pass


def model(v, lim):
    # What the client must return ("value", x), raise ("error", first error text) or refuse
    # ("over",), reading in stream order as RESP2 does.
    left = {"items": lim["max_items"], "bulk": lim["max_bulk"]}
    errors = []

    def line(b):
        if len(b) > lim["max_line"]:
            raise Over

    def walk(v, depth):
        k, x = v
        if k in "+-":
            line(k.encode() + x)
            if k == "-":
                errors.append(x.decode())
                return None
            return x
        if k == ":":
            line(b":%d" % x)
            return x
        if k == "$":
            line(b"$-1" if x is None else b"$%d" % len(x))
            if x is None:
                return None
            if len(x) > left["bulk"]:
                raise Over
            left["bulk"] -= len(x)
            return x
        line(b"*-1" if x is None else b"*%d" % len(x))
        if depth >= lim["max_depth"]:
            raise Over
        if x is None:
            return None
        if len(x) > left["items"]:
            raise Over
        left["items"] -= len(x)
        return [walk(e, depth + 1) for e in x]

    try:
        got = walk(v, 0)
    except Over:
        return ("over",)
    return ("error", errors[0]) if errors else ("value", got)


def outcome(sock, lim):
    r = t._resp()
    try:
        return ("value", t._run(sock, lambda c: c.execute_command("GET", "k"), **lim))
    except r.RespError as e:
        return ("error", str(e))
    except OSError as e:
        assert sock.closed, e
        assert "over the limit" in str(e), e
        return ("over",)



@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(values, limits, st.integers(0, 5))
def test_replies_read_back_or_are_refused_as_the_limits_say(v, lim, step):
    data = encode(v)
    s = t._Sock(data, (), step)
    want = model(v, lim)
    # The array's mid-line depth check comes before its length check, and both before
    # any element: the model reads in the same order, so the outcomes must be equal.
    assert outcome(s, lim) == want, (data, lim)
    if want[0] != "over":
        assert s.pos == len(data)  # every byte of the reply read, in step for the next one


@settings(deadline=None, max_examples=300)
@given(st.binary(max_size=300), st.integers(0, 7))
def test_arbitrary_bytes_raise_only_resp_or_network_errors(data, step):
    r = t._resp()
    s = t._Sock(data, (), step)
    try:
        t._run(s, lambda c: c.execute_command("GET", "k"), max_bulk=64, max_items=8, max_depth=3,
               max_line=32)
    except r.RespError:
        pass
    except OSError:
        assert s.closed
    assert s.pos <= len(data)
