# The fixed op stream of tests/mcu_stream.py (what ticketq mcu compares across the emulated
# targets, install routes and paths) gives the same line on every interpreter: pinned here.
import mcu_stream

GOLDEN = "STREAM 03f63172 12661f59 3000"


def test_the_op_stream_line_is_the_same_on_every_interpreter():
    assert mcu_stream.line() == GOLDEN, mcu_stream.line()


def test_the_fold_tells_outcomes_apart():
    h = mcu_stream.fold(0, 5)
    assert mcu_stream.fold(h, 1) != mcu_stream.fold(h, 2)
    assert mcu_stream.fold(h, -1) == mcu_stream.fold(h, 0x3FFFFFFF)  # -1 folds as 2**30-1
    assert 0 <= mcu_stream.fold(0x3FFFFFFF, 0x3FFFFFFF) < 0x40000000
