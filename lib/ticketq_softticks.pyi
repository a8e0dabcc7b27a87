def ticks_ms() -> int:
    """The current tick, 0 <= t < 2**30, from a monotonic clock."""


def ticks_add(t: int, delta: int) -> int:
    ...


def ticks_diff(a: int, b: int) -> int:
    ...


def sleep_ms(ms: int) -> None:
    """Sleep ``ms`` ms; ``ms <= 0`` returns at once."""
