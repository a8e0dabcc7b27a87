# A random stream for tests that is the same on every interpreter and runs under
# heap_lock: xorshift on 30 bits, every intermediate a small int.


class Rng:
    def __init__(self, seed=0x1234567):
        self.x = seed

    def next(self, n):
        x = self.x
        x ^= (x & 0x1FFFF) << 13
        x ^= x >> 17
        x ^= (x & 0x1FFFFFF) << 5
        self.x = x
        return x % n
