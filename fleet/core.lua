-- core.lua: the key layout, the ticket encoding and the helpers that every concern of the
-- ticketq fleet library uses (queue.lua, lease.lua; lanes.lua later). tools/fleetctl.py
-- loads them as ONE Redis library, in that order, after two generated lines:
--     #!lua name=ticketq_<V>
--     local V = <V>
-- so each function is registered as tq<V>_<op>. A client built for another version calls
-- names this server does not have and gets "Function not found", never an old behaviour.
-- The version V is ticketq_fleet.VERSION (lib/ticketq_fleet.py): one number, one place.
--
-- KEYS: every function gets the same ten keys of one queue, in this order. The client
-- builds them as <prefix>{<name>}:<suffix>; the {name} hash tag puts them in one Redis
-- Cluster slot, and every key a function touches is declared (docs/fleet.md).
local META, READY, IDS, PROMO, LEASED, DELIV, WAKE, DEAD, IDEM, IDEMT = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
local NKEYS = 10
--   meta    HASH  v (layout = V), cap, first, aging, maxdel, hi, lo (the push counter),
--                 left (pops to the next promotion), digest, clients (numbers given),
--                 pops (pops so far)
--   ready   ZSET  the queued tickets. score = 3 - class (CRITICAL pops first), member =
--                 "%08x%08x%08x" of (hi, lo, job id): 24 bytes, fixed width, so equal
--                 scores order by member bytes = by counter = FIFO. The score is a small
--                 integer, exact as a double; the counter lives in the member as two parts
--                 (hi < 2**32, lo < 2**30), each exact in Lua's doubles: 2**62 pushes
--                 keep their order (BullMQ's priority*2**32 + counter score did not:
--                 taskforcesh/bullmq#4249, #2597).
--   ids     ZSET  score 0, member "%08x" job id .. the 16-hex counter: the oldest queued
--                 ticket of an id is the first member of its prefix (remove: O(log n)).
--   promo   SET   members (of ready or leased) that aging promoted.
--   leased  ZSET  score = lease expiry, ms of the server's TIME; member = the class digit
--                 .. the ready member, so an expired lease goes back to exactly its place.
--   deliv   HASH  ready member -> times it was leased (redelivery count), while queued
--                 or leased.
--   wake    LIST  at most one token: pushed when work arrives, taken by BLPOP waiters.
--   dead    LIST  dead-lettered tickets, "<id> <class> <seq> <deliveries>", oldest first.
--   idem    HASH  "<client number>:<call>" -> "<opno>|<json reply>": each client's last
--                 call of each kind (push, pop, ...), replayed when sent again (a retry).
--   idemt   ZSET  client number -> server ms of its last call (idem records expire).

local MASK = 0x3FFFFFFF          -- 2**30 - 1: ids, sequence numbers, the digest
local LO = 0x40000000            -- 2**30: lo counts 0 .. 2**30 - 1, then carries into hi
local HI_END = 0x100000000       -- 2**32: hi stays below it, so 2**62 pushes in all
local DIG0 = 0x2A5F0C3           -- the digest of an empty schedule (ticketq_base._DIG0)
local IDEM_MS = 3600000          -- an idle client's replay record is dropped after 1 h

local function fail(code, msg)
  -- An error reply "<CODE> ticketq: <msg>". Raised before the function writes anything.
  return error({err = code .. ' ticketq: ' .. msg})
end

local function now_ms()
  -- The server's clock, the only clock a lease ever uses (kombu#337: worker clocks lie).
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function int_arg(v, lo, hi, what)
  -- Arguments arrive as strings. Clients check them first (ticketq_heap._int rules); this
  -- is the server's own guard, for redis-cli and other callers.
  local n = tonumber(v)
  if n == nil or n ~= math.floor(n) or n < lo or n > hi then
    fail('TQARG', what .. ' must be an integer ' .. lo .. '..' .. hi .. ', not ' .. tostring(v))
  end
  return n
end

local function meta(keys)
  -- The queue's settings and counters; a clear error for a missing queue or another layout.
  local r = redis.call('HMGET', keys[META], 'v', 'cap', 'first', 'aging', 'maxdel', 'hi', 'lo',
    'left', 'digest', 'pops')
  if not r[1] then
    fail('TQNOQUEUE', 'no queue at ' .. keys[META] .. ' (create it with a capacity)')
  end
  if tonumber(r[1]) ~= V then
    fail('TQLAYOUT', 'queue ' .. keys[META] .. ' has layout version ' .. r[1] ..
      ', this library (ticketq_' .. V .. ') reads version ' .. V .. ' only')
  end
  return {cap = tonumber(r[2]), first = tonumber(r[3]), aging = tonumber(r[4]),
    maxdel = tonumber(r[5]), hi = tonumber(r[6]), lo = tonumber(r[7]), left = tonumber(r[8]),
    digest = tonumber(r[9]), pops = tonumber(r[10])}
end

local function counter(member)
  -- (hi, lo) of a ready member, each exact as a double.
  return tonumber(string.sub(member, 1, 8), 16), tonumber(string.sub(member, 9, 16), 16)
end

local function older(a, b)
  -- Was ready member a pushed before b? Compared as numbers, not with Lua's string <,
  -- which follows the server's locale (strcoll).
  local ah, al = counter(a)
  local bh, bl = counter(b)
  return ah < bh or (ah == bh and al < bl)
end

local function job_id(member)
  return tonumber(string.sub(member, 17, 24), 16)
end

local function seq_of(m, member)
  -- The sequence number push returned: (first_seq + pushes before it) mod 2**30.
  local _, lo = counter(member)
  return (m.first + lo) % LO
end

local function id_key(member)
  -- The ids index member of a ready member: job id first, then the counter.
  return string.sub(member, 17, 24) .. string.sub(member, 1, 16)
end

local function wake(keys)
  -- One token for a BLPOP waiter (at most one: a waiter that takes it claims a ticket,
  -- and a claim that leaves work behind puts the token back: see queue.lua pop).
  if redis.call('LLEN', keys[WAKE]) == 0 then
    redis.call('RPUSH', keys[WAKE], '1')
  end
end

local function enqueue(keys, cls, member)
  -- Put a ticket (back) in its place: its class band, its counter. The place is the
  -- member, so a ticket that comes back from a lease is exactly where it was.
  redis.call('ZADD', keys[READY], 3 - cls, member)
  redis.call('ZADD', keys[IDS], 0, id_key(member))
  wake(keys)
end

local function forget(keys, member)
  -- Drop what is kept about a ticket that leaves the queue for good.
  redis.call('SREM', keys[PROMO], member)
  redis.call('HDEL', keys[DELIV], member)
end

local function bury(keys, m, cls, member, deliveries)
  redis.call('RPUSH', keys[DEAD], string.format('%d %d %d %d', job_id(member), cls,
    seq_of(m, member), deliveries))
  forget(keys, member)
end

local function requeue(keys, m, lm)
  -- A lease ends without an ack (expired or released): back to its place, or to the
  -- dead-letter list once it has been delivered maxdel times. Returns 1 or 2 (dead).
  local cls = tonumber(string.sub(lm, 1, 1))
  local member = string.sub(lm, 2)
  redis.call('ZREM', keys[LEASED], lm)
  local d = tonumber(redis.call('HGET', keys[DELIV], member)) or 0
  if m.maxdel > 0 and d >= m.maxdel then
    bury(keys, m, cls, member, d)
    return 2
  end
  enqueue(keys, cls, member)
  return 1
end

local function reap(keys, m, now)
  -- Every expired lease goes back before anything else looks at the queue, so no pop can
  -- pass over an older ticket whose lease ran out. O(k log n) for k expired leases.
  local due = redis.call('ZRANGEBYSCORE', keys[LEASED], '-inf', now)
  for i = 1, #due do
    requeue(keys, m, due[i])
  end
end

local function next_expiry(keys, now)
  -- ms until the earliest lease expires (>= 1), or -1 when nothing is leased.
  local r = redis.call('ZRANGE', keys[LEASED], 0, 0, 'WITHSCORES')
  if #r == 0 then
    return -1
  end
  return math.max(tonumber(r[2]) - now, 1)
end

-- The calls that change the queue and are made idempotent: each client has one replay
-- record per call name, so a pop whose reply was lost is still replayable after the
-- client's next push.
local IDEM_OPS = {'push', 'pop', 'remove', 'clear', 'ack', 'release'}

local function idem(keys, args, now, op, fn)
  -- Run fn once per (client, op, opno): args[1] is the client number ('0': no record),
  -- args[2] the call's number. The reply is kept, so a call sent again after a dropped
  -- connection (a board's retry, redis-py's own retries) gets the same answer and changes
  -- nothing: a retried pop returns the same ticket, a retried push queues nothing more.
  local client, opno = args[1], args[2]
  if client == '0' then
    return fn()
  end
  local field = client .. ':' .. op
  local rec = redis.call('HGET', keys[IDEM], field)
  if rec then
    local bar = string.find(rec, '|', 1, true)
    if string.sub(rec, 1, bar - 1) == opno then
      return cjson.decode(string.sub(rec, bar + 1))
    end
  end
  local r = fn()
  redis.call('HSET', keys[IDEM], field, opno .. '|' .. cjson.encode(r))
  redis.call('ZADD', keys[IDEMT], now, client)
  local old = redis.call('ZRANGEBYSCORE', keys[IDEMT], '-inf', now - IDEM_MS, 'LIMIT', 0, 8)
  for i = 1, #old do
    for j = 1, #IDEM_OPS do
      redis.call('HDEL', keys[IDEM], old[i] .. ':' .. IDEM_OPS[j])
    end
    redis.call('ZREM', keys[IDEMT], old[i])
  end
  return r
end

local function mutation(keys, args, op, m, fn)
  -- The frame of every call that changes the queue, after its arguments were checked:
  -- replayed if it was made before (idem), else expired leases go back first (reap),
  -- then fn(now) does the work.
  local now = now_ms()
  return idem(keys, args, now, op, function()
    reap(keys, m, now)
    return fn(now)
  end)
end

local function rot5(g)
  -- Rotate a 30-bit value left by 5 (LuaBitOp works on 32 bits: 30-bit values stay exact).
  return bit.bor(bit.lshift(bit.band(g, 0x1FFFFFF), 5), bit.rshift(g, 25))
end

local function digest(g, id, seq, cls)
  -- ticketq.TicketQueue.pop's schedule digest, the same formula bit for bit.
  g = bit.bxor(rot5(g), id)
  return bit.bxor(bit.bxor(rot5(g), seq), bit.lshift(cls, 28))
end

local function promote(keys)
  -- Aging: the oldest ticket below CRITICAL (the earliest pushed of the heads of the three
  -- lower class bands) moves up one class, keeping its member, so its sequence.
  local best, band = nil, nil
  for s = 1, 3 do
    local r = redis.call('ZRANGEBYSCORE', keys[READY], s, s, 'LIMIT', 0, 1)
    if r[1] and (best == nil or older(r[1], best)) then
      best, band = r[1], s
    end
  end
  if best then
    redis.call('ZADD', keys[READY], band - 1, best)
    redis.call('SADD', keys[PROMO], best)
  end
end

local function register(name, fn)
  -- Functions are named tq<V>_<name>: a version is part of every name a client calls.
  redis.register_function('tq' .. V .. '_' .. name, fn)
end
