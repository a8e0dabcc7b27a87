# CPython only: the REPL examples in README.md are run as doctests, so the page a newcomer
# reads first stays true.
import os

from support import IS_MICROPYTHON, skip


def test_readme_repl_examples():
    if IS_MICROPYTHON:
        skip("reads README.md and uses doctest (host only)")
    import doctest
    import re

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "README.md")
    with open(path) as f:
        text = f.read()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if ">>>" in b]
    assert len(blocks) >= 2
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for i, block in enumerate(blocks):
        test = parser.get_doctest(block, {}, "README block %d" % i, path, 0)
        runner.run(test)
    assert runner.failures == 0 and runner.tries >= 10, (runner.failures, runner.tries)
