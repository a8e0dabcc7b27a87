-- core.lua: the key layout, the ticket encoding and the helpers that every concern of the
-- ticketq fleet library uses (queue.lua, lease.lua, lanes.lua). ticketq fleet
-- loads them as ONE Redis library, in that order, after two generated lines:
--     #!lua name=ticketq_<V>
--     local V = <V>
-- so each function is registered as tq<V>_<op>. A client built for another version calls
-- names this server does not have and gets "Function not found", never an old behaviour.
-- The version V is ticketq.fleet.VERSION (lib/ticketq/fleet.py): one number, one place.
--
-- KEYS: every function gets the same ten keys of one queue, in this order. The client
-- builds them as <prefix>{<name>}:<suffix>; the {name} hash tag puts them in one Redis
-- Cluster slot, and every key a function touches is declared (docs/fleet.md).
local META, READY, IDS, PROMO, LEASED, DELIV, WAKE, DEAD, IDEM, IDEMT = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
local NKEYS = 10
--   meta    HASH  v (layout: "<V>" for a plain queue, "<V>:lanes" for a lane queue, so a
--                 library without lanes refuses a lane queue by name), cap, first, aging,
--                 maxdel, hi, lo (the push counter), left (pops to the next promotion),
--                 digest, clients (numbers given), made (the creation stamp: the server's
--                 TIME in us, the first part of every client number), pops (pops so far),
--                 acked, returned, buried, expired (totals since the queue was made: acks
--                 that held their lease; leases ended without an ack, by release or expiry,
--                 whose ticket went back to the queue, or to the dead list; leases that ran
--                 out; absent until the first); a lane queue also
--                 lanes (L), tb (the lane table), c0..c3 (each class's cursor), w<l>, b<l>
--                 (lane l's weight and bound), n<l> (its tickets, queued or leased)
--   ready   ZSET  the queued tickets. score = 3 - class (CRITICAL pops first), member =
--                 "%08x%08x%08x" of (hi, lo, job id): 24 bytes, fixed width, so equal
--                 scores order by member bytes = by counter = FIFO. The score is a small
--                 integer, exact as a double; the counter lives in the member as two parts
--                 (hi < 2**32, lo < 2**30), each exact in Lua's doubles: 2**62 pushes
--                 keep their order (BullMQ's priority*2**32 + counter score did not:
--                 taskforcesh/bullmq#4249, #2597).
--                 In a lane queue: score = (3 - class) * 32 + lane, so each (class, lane)
--                 list is one score, FIFO by member; member = the 24 bytes and the lane as
--                 one base-32 digit (25 bytes), so a member says where it belongs.
--   ids     ZSET  score 0, member "%08x" job id .. the 16-hex counter (.. the lane digit):
--                 the oldest queued ticket of an id is the first member of its prefix
--                 (remove: O(log n)).
--   promo   SET   members (of ready or leased) that aging promoted.
--   leased  ZSET  score = lease expiry, ms of the server's TIME; member = the class digit
--                 .. the ready member, so an expired lease goes back to exactly its place.
--   deliv   HASH  ready member -> times it was leased (redelivery count), while queued
--                 or leased.
--   wake    LIST  at most one token: pushed when work arrives, taken by BLPOP waiters.
--   dead    LIST  dead-lettered tickets, "<id> <class> <seq> <deliveries>", oldest first; a
--                 lane queue's add " <lane>", a keyed one's " <key>" (bury).
--   idem    HASH  "<made>.<n>:<call>" -> "<opno>|<reply>" (record: a number, "~" and a
--                 flat list joined by ",", or "J" and JSON): each client's last
--                 call of each kind (push, pop, ...), replayed when sent again (a retry).
--   idemt   ZSET  client number -> server ms of its last call (idem records expire).

local MASK = 0x3FFFFFFF          -- 2**30 - 1: ids, sequence numbers, the digest
local LO = 0x40000000            -- 2**30: lo counts 0 .. 2**30 - 1, then carries into hi
local HI_END = 0x100000000       -- 2**32: hi stays below it, so 2**62 pushes in all
local DIG0 = 0x2A5F0C3           -- the digest of an empty schedule (ticketq.core._DIG0)
local IDEM_MS = 3600000          -- an idle client's replay record is dropped after 1 h
local IDEM_STAMP_MS = 60000      -- (its idle stamp moves at most once a minute: see idem)
local BAND = 32                  -- a lane queue's class band: 32 scores, one per lane
local DIGITS = '0123456789abcdefghijklmnopqrst'  -- lane l is DIGITS[l + 1] (base 32)

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
  -- Arguments arrive as strings. Clients check them first (ticketq.core._int rules); this
  -- is the server's own guard, for redis-cli and other callers.
  -- Canonical decimal integers only, as Redis writes them: tonumber would also take "1e3",
  -- "0x10" and surrounding spaces, and "-0", "+1" or "007" are not how a number is written.
  local s = tostring(v)
  local n = (s == '0' or string.find(s, '^%-?[1-9]%d*$')) and tonumber(s)
  if not n or n < lo or n > hi then
    fail('TQARG', what .. ' must be an integer ' .. lo .. '..' .. hi .. ', not ' .. tostring(v))
  end
  return n
end

local TYPES = {[META] = 'hash', [READY] = 'zset', [IDS] = 'zset', [PROMO] = 'set',
  [LEASED] = 'zset', [DELIV] = 'hash', [WAKE] = 'list', [DEAD] = 'list', [IDEM] = 'hash',
  [IDEMT] = 'zset'}

local function check_keys(keys)
  -- Every key of the queue is of its type or absent, checked before a function writes
  -- anything: a key another program wrote over is a clear error (TQTYPE), never a call
  -- that stops half done at its first WRONGTYPE (Redis keeps a script's writes before an
  -- error). Ten O(1) TYPE calls in the server.
  if #keys ~= NKEYS then
    fail('TQARG', 'expected ' .. NKEYS .. ' keys, got ' .. #keys)
  end
  for i = 1, NKEYS do
    local t = redis.call('TYPE', keys[i])['ok']
    if t ~= 'none' and t ~= TYPES[i] then
      fail('TQTYPE', 'key ' .. keys[i] .. ' holds a ' .. t .. ', ticketq keeps a ' .. TYPES[i] ..
        ' there: another program uses this prefix and queue name')
    end
  end
end

local FEW = {'v', 'cap', 'first', 'made', 'hi', 'lo'}
local ALL = {'v', 'cap', 'first', 'made', 'hi', 'lo', 'aging', 'maxdel', 'left', 'digest', 'pops',
  'lanes'}

local function meta(keys, kind, few)
  -- The queue's settings and counters; a clear error for a missing queue, another layout,
  -- or the other kind: kind 'plain' (queue.lua's push, pop, peek, tickets) or 'lanes'
  -- (lanes.lua's), nil for the calls both kinds share, 'keyed' (keyed.lua's: a keyed lane
  -- queue, layout "<V>:keyed", refused by every other kind). m.lanes is L for a lane queue.
  -- few (optional): read only what a plain push needs (cap, first, made, hi, lo: the
  -- other fields are nil), half the HMGET (each field is a scan of meta's listpack).
  -- Every function that takes the queue's keys calls it first. The ten keys' types are
  -- checked once per queue object, by open and client (check_keys), not by every call
  -- (ten TYPE calls were a third of a push's server time): here only the meta hash is,
  -- by the read every call makes anyway, and its layout field v vouches for the rest.
  -- What that trusts: that no other program writes over a key of a live queue. One that
  -- does makes the next call that touches that key fail with Redis's WRONGTYPE (the
  -- client names the queue: FleetError TQTYPE), possibly after some of its writes; the
  -- next open names the key (TQTYPE). docs/fleet.md, "Key types".
  if #keys ~= NKEYS then
    fail('TQARG', 'expected ' .. NKEYS .. ' keys, got ' .. #keys)
  end
  local r = redis.pcall('HMGET', keys[META], unpack(few and FEW or ALL))
  if r['err'] then
    fail('TQTYPE', 'key ' .. keys[META] .. ' holds a ' .. redis.call('TYPE', keys[META])['ok'] ..
      ', ticketq keeps a hash there: another program uses this prefix and queue name')
  end
  if not r[1] then
    if redis.call('EXISTS', keys[META]) == 1 then
      -- a hash without ticketq's layout field: not a queue to create over, nor one to open
      fail('TQTYPE', 'key ' .. keys[META] .. ' holds a hash without ticketq\'s fields (no v): ' ..
        'another program uses this prefix and queue name')
    end
    fail('TQNOQUEUE', 'no queue at ' .. keys[META] .. ' (create it with a capacity)')
  end
  local has = r[1] == V .. ':lanes'
  local keyed = r[1] == V .. ':keyed'
  if r[1] ~= tostring(V) and not has and not keyed then
    fail('TQLAYOUT', 'queue ' .. keys[META] .. ' has layout version ' .. r[1] ..
      ', this library (ticketq_' .. V .. ') reads version ' .. V .. ' only')
  end
  if keyed ~= (kind == 'keyed') then
    -- a keyed lane queue (keyed.lua) is served by keyed.lua's functions only, and they
    -- serve nothing else
    fail('TQKIND', 'queue ' .. keys[META] .. (keyed and ' has keyed lanes: open it with ' ..
      'ticketq.fleet.FleetLaneQueue(conn, name)' or (has and ' has no keyed lanes (fixed ' ..
      'lanes): open it with ticketq.fleet.FleetLaneQueue(conn, name), which takes its ' ..
      'settings' or ' has no keyed lanes (no lanes): open it with ticketq.fleet.FleetQueue')))
  elseif kind == 'plain' and has then
    fail('TQKIND', 'queue ' .. keys[META] .. ' has lanes: open it with ' ..
      'ticketq.fleet.FleetLaneQueue')
  elseif kind == 'lanes' and not has then
    fail('TQKIND', 'queue ' .. keys[META] .. ' has no lanes: open it with ticketq.fleet.FleetQueue')
  end
  if few then
    return {cap = tonumber(r[2]), first = tonumber(r[3]), made = r[4] or '0', hi = tonumber(r[5]),
      lo = tonumber(r[6])}
  end
  return {cap = tonumber(r[2]), first = tonumber(r[3]), made = r[4] or '0', hi = tonumber(r[5]),
    lo = tonumber(r[6]), aging = tonumber(r[7]), maxdel = tonumber(r[8]), left = tonumber(r[9]),
    digest = tonumber(r[10]), pops = tonumber(r[11]), lanes = tonumber(r[12])}
end

local function now_client(keys, client)
  -- The server ms stamp of a client's last call (or of its number's birth) in idemt.
  redis.call('ZADD', keys[IDEMT], now_ms(), client)
end

local function new_client(keys, made)
  -- A client number for the replay records: "<made>.<n>", the queue's creation stamp and a
  -- count, so a number is never given twice by one queue, and a queue deleted and made again
  -- (its count starts again) refuses the numbers the old one gave (idem: TQSTALE). It is
  -- entered in idemt at once, so a number missing from idemt is one whose records were
  -- dropped (idle an hour): idem refuses it (TQEXPIRED) rather than take a call sent again
  -- for a new one.
  local client = made .. '.' .. redis.call('HINCRBY', keys[META], 'clients', 1)
  now_client(keys, client)
  return client
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
  -- The ids index member of a ready member: job id first, then the counter (then the lane).
  return string.sub(member, 17, 24) .. string.sub(member, 1, 16) .. string.sub(member, 25)
end

local function of_id_key(k)
  -- The ready member of an ids index member (id_key's inverse).
  return string.sub(k, 9, 24) .. string.sub(k, 1, 8) .. string.sub(k, 25)
end

local function lane_of(member)
  -- The lane of a lane queue's member (its 25th byte), nil for a plain queue's.
  if #member == 25 then
    return tonumber(string.sub(member, 25), 32)
  end
  return nil
end

local function score(cls, member)
  -- Where a ticket of this class goes in the ready set: its class band (and lane).
  local l = lane_of(member)
  if l then
    return (3 - cls) * BAND + l
  end
  return 3 - cls
end

local function wake(keys)
  -- One token for a BLPOP waiter (at most one: a waiter that takes it claims a ticket,
  -- and a claim that leaves work behind puts the token back: see queue.lua pop).
  if redis.call('LLEN', keys[WAKE]) == 0 then
    redis.call('RPUSH', keys[WAKE], '1')
  end
end

local function enqueue(keys, cls, member)
  -- Put a ticket (back) in its place: its class band (its lane), its counter. The place is
  -- the member, so a ticket that comes back from a lease is exactly where it was.
  redis.call('ZADD', keys[READY], score(cls, member), member)
  redis.call('ZADD', keys[IDS], 0, id_key(member))
  wake(keys)
end

local function forget(keys, member, m)
  -- Drop what is kept about a ticket that leaves the queue for good (and, in a lane queue,
  -- count it out of its lane: a leased ticket still counts against the lane's bound).
  -- m (optional): the queue's meta; a queue without aging (m.aging 0) never promotes, so
  -- its promo set is empty and is not touched.
  if not m or m.aging > 0 then
    redis.call('SREM', keys[PROMO], member)
  end
  redis.call('HDEL', keys[DELIV], member)
  local l = lane_of(member)
  if l then
    redis.call('HINCRBY', keys[META], 'n' .. l, -1)
  end
end

local function bury(keys, m, cls, member, deliveries, key)
  -- A dead letter "<id> <class> <seq> <deliveries>", and for a lane queue " <lane>" (its
  -- number), for a keyed one " <key>" (the key's bytes, last: a key may hold spaces), so a
  -- requeue (revive, krevive) puts it back into its own lane. Letters written before lanes
  -- were recorded have four fields: they requeue to lane 0 (key 0), as they always did.
  local l = key or lane_of(member)
  redis.call('RPUSH', keys[DEAD], string.format('%d %d %d %d', job_id(member), cls,
    seq_of(m, member), deliveries) .. (l and (' ' .. l) or ''))
  forget(keys, member)
end

local function letter(e)
  -- A dead letter's id, class, seq, deliveries (numbers) and lane (the text after the fourth
  -- field: a lane number or a key; nil in a plain queue's letter or one without a lane).
  local i, c, s, d, rest = string.match(e, '^(%d+) (%d+) (%d+) (%d+)(.*)$')
  return tonumber(i), tonumber(c), tonumber(s), tonumber(d), rest ~= '' and string.sub(rest, 2) or nil
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
    redis.call('HINCRBY', keys[META], 'buried', 1)
    return 2
  end
  enqueue(keys, cls, member)
  redis.call('HINCRBY', keys[META], 'returned', 1)
  return 1
end

local function reap(keys, m, now)
  -- Every expired lease goes back before anything else looks at the queue, so no pop can
  -- pass over an older ticket whose lease ran out. O(k log n) for k expired leases.
  local due = redis.call('ZRANGEBYSCORE', keys[LEASED], '-inf', now)
  for i = 1, #due do
    requeue(keys, m, due[i])
  end
  if #due > 0 then
    redis.call('HINCRBY', keys[META], 'expired', #due)
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
local IDEM_OPS = {'push', 'pop', 'remove', 'clear', 'ack', 'release', 'dead', 'pushn', 'popn',
  'ackpop', 'revive'}

local function holds(keys, token, now)
  -- Does the lease of this token (pop's reply) still hold: leased, not expired at `now`
  -- (reap's rule: an expiry <= now has run out), and this very delivery (the count)?
  local colon = string.find(token, ':', 1, true)
  local lm = string.sub(token, 1, colon - 1)
  local exp = redis.call('ZSCORE', keys[LEASED], lm)
  return exp ~= false and exp ~= nil and tonumber(exp) > now and
    redis.call('HGET', keys[DELIV], string.sub(lm, 2)) == string.sub(token, colon + 1)
end

local function pop_replayable(keys, r, now)
  -- A pop's recorded reply may be sent again only while it is still true: a ticket that
  -- left the queue (no lease), or a leased ticket whose lease that delivery still holds.
  -- An empty answer, or a lease that ran out (the ticket went back, maybe to another
  -- consumer, maybe acked since), is not replayed: the pop runs anew (idem), so it never
  -- hands out a ticket this delivery no longer holds.
  if r[1] < 0 then
    return false
  end
  return r[6] == '' or holds(keys, r[6], now)
end

local function record(r)
  -- A reply as its replay record keeps it: a number as itself, a flat list of numbers and
  -- strings (every reply of this library) as ~ and its items joined by ',' (a string with a
  -- ' in front); anything else as JSON (J in front). cjson took ~4 us a call, a third of a
  -- push's Lua time (issue 21). unrecord also reads the records of the library before it
  -- (plain JSON: [ or {), so a call sent again across an upgrade is replayed as it was.
  if type(r) == 'number' then
    return tostring(r)
  end
  if type(r) == 'table' then
    local out = {}
    for i = 1, #r do
      local v = r[i]
      if type(v) == 'number' then
        out[i] = tostring(v)
      elseif type(v) == 'string' and not string.find(v, ',', 1, true) then
        out[i] = "'" .. v
      else
        out = nil
        break
      end
    end
    if out and next(r, #r > 0 and #r or nil) == nil then
      return '~' .. table.concat(out, ',')
    end
  end
  return 'J' .. cjson.encode(r)
end

local function unrecord(s)
  -- record's inverse.
  local c = string.sub(s, 1, 1)
  if c == 'J' then
    return cjson.decode(string.sub(s, 2))
  elseif c == '[' or c == '{' then
    return cjson.decode(s)
  elseif c ~= '~' then
    return tonumber(s)
  end
  local out = {}
  if #s == 1 then
    return out
  end
  for v in string.gmatch(string.sub(s, 2) .. ',', '([^,]*),') do
    if string.sub(v, 1, 1) == "'" then
      out[#out + 1] = string.sub(v, 2)
    else
      out[#out + 1] = tonumber(v)
    end
  end
  return out
end

local function idem(keys, m, args, now, op, fn, replayable)
  -- Run fn once per (client, op, opno): args[1] is the client number ('0': no record),
  -- args[2] the call's number. The reply is kept, so a call sent again after a dropped
  -- connection (a board's retry, redis-py's own retries) gets the same answer and changes
  -- nothing: a retried pop returns the same ticket, a retried push queues nothing more.
  -- A client number given by an earlier queue of this name (deleted, then made again) is
  -- refused before anything is written: its records are gone, and its count would
  -- collide with the new queue's clients.
  local client, opno = args[1], args[2]
  if client == '0' then
    return fn()
  end
  local dot = string.find(client, '.', 1, true)
  if not dot or string.sub(client, 1, dot - 1) ~= m.made then
    fail('TQSTALE', 'client ' .. client .. ' was given by an earlier queue at ' .. keys[META] ..
      ' (deleted and made again since, ' .. m.made .. '): open the queue again')
  end
  local seen = redis.call('ZSCORE', keys[IDEMT], client)
  if not seen and op ~= 'pop' then
    -- Its records were dropped (idle an hour): this call may be one sent again whose first
    -- send ran, and running it again would push (remove, take letters) twice. Refused,
    -- nothing written: the client takes a new number (a call it never sent before is then
    -- safe to send). A pop is the exception: run as a new pop it can hand out no ticket
    -- twice (a lost reply's ticket comes back when its lease runs out, or, unleased, is gone).
    fail('TQEXPIRED', 'client ' .. client .. ' of ' .. keys[META] .. ' was idle over an hour ' ..
      'and its replay records were dropped: take a new client number')
  end
  local field = client .. ':' .. op
  local rec = redis.call('HGET', keys[IDEM], field)
  if rec then
    local bar = string.find(rec, '|', 1, true)
    if string.sub(rec, 1, bar - 1) == opno then
      local r = unrecord(string.sub(rec, bar + 1))
      -- replayable(keys, r, now): true (send r again), false/nil (run anew), or a table:
      -- the reply to send instead (a batch pop's, without its leases that ran out)
      local v = not replayable or replayable(keys, r, now)
      if v then
        -- A replay writes one counter, so that it is replicated: a WAIT sent after it (a
        -- durable client's retry, maybe on a new connection) then waits for the replicas
        -- to have everything up to now, the first run's writes included.
        redis.call('HINCRBY', keys[META], 'replays', 1)
        return v == true and r or v
      end
    end
  end
  local r = fn()
  redis.call('HSET', keys[IDEM], field, opno .. '|' .. record(r))
  if not seen or now - tonumber(seen) >= IDEM_STAMP_MS then
    -- The client's stamp moves at most once a minute (a ZADD per call was a tenth of a
    -- push): a client is dropped after IDEM_MS to IDEM_MS + IDEM_STAMP_MS idle.
    redis.call('ZADD', keys[IDEMT], now, client)
  end
  -- A client's first call and every 16th drop the records of up to 8 clients idle over
  -- IDEM_MS (a sweep at every call was a twentieth of a push).
  if tonumber(opno) % 16 == 1 then
    local old = redis.call('ZRANGEBYSCORE', keys[IDEMT], '-inf', now - IDEM_MS, 'LIMIT', 0, 8)
    for i = 1, #old do
      for j = 1, #IDEM_OPS do
        redis.call('HDEL', keys[IDEM], old[i] .. ':' .. IDEM_OPS[j])
      end
      redis.call('ZREM', keys[IDEMT], old[i])
    end
  end
  return r
end

local function mutation(keys, args, op, m, fn, replayable)
  -- The frame of every call that changes the queue, after its arguments were checked:
  -- replayed if it was made before (idem; a pop only while its reply still holds, or as
  -- `replayable` says), else expired leases go back first (reap), then fn(now) does the work.
  local now = now_ms()
  return idem(keys, m, args, now, op, function()
    reap(keys, m, now)
    return fn(now)
  end, replayable or (op == 'pop' and pop_replayable) or nil)
end

local function stamp(keys, m, id)
  -- A new ticket's member (without a lane) and sequence number; the push counter moves on.
  -- Called once every check of a push has passed: a refused push spends no number.
  if m.hi >= HI_END then
    fail('TQEXHAUSTED', 'queue ' .. keys[META] .. ' has used all 2**62 sequence counters')
  end
  local member = string.format('%08x%08x%08x', m.hi, m.lo, id)
  local lo, hi = m.lo + 1, m.hi
  if lo == LO then
    lo, hi = 0, hi + 1
  end
  redis.call('HSET', keys[META], 'hi', hi, 'lo', lo)  -- both < 2**32: written as integers
  return member, (m.first + m.lo) % LO
end

local function heads(keys, lo, hi)
  -- The first member of each score from lo to hi that has one, {{member, score}, ...} in
  -- score order: the head of each class band (plain) or (class, lane) list (lanes).
  -- One O(log n) call per list found, and one more.
  local out = {}
  while lo <= hi do
    local r = redis.call('ZRANGEBYSCORE', keys[READY], lo, hi, 'WITHSCORES', 'LIMIT', 0, 1)
    if not r[1] then
      break
    end
    local s = tonumber(r[2])
    out[#out + 1] = {r[1], s}
    lo = s + 1
  end
  return out
end

local function rot5(g)
  -- Rotate a 30-bit value left by 5 (LuaBitOp works on 32 bits: 30-bit values stay exact).
  return bit.bor(bit.lshift(bit.band(g, 0x1FFFFFF), 5), bit.rshift(g, 25))
end

local function digest(g, id, seq, cls, lane)
  -- ticketq.TicketQueue.pop's schedule digest, the same formula bit for bit; for a lane
  -- other than 0, ticketq.lanes.LaneQueue.pop's one more rotation and xor of the lane.
  g = bit.bxor(rot5(g), id)
  g = bit.bxor(bit.bxor(rot5(g), seq), bit.lshift(cls, 28))
  if lane and lane ~= 0 then
    g = bit.bxor(rot5(g), lane)
  end
  return g
end

local function promote(keys, m)
  -- Aging: the oldest ticket below CRITICAL (the earliest pushed of the heads of the lower
  -- class bands, or of their lanes' lists) moves up one class, keeping its member, so its
  -- sequence and its lane: it joins its lane's list of the higher class in sequence order.
  local step = m.lanes and BAND or 1
  local best = nil
  for _, h in ipairs(heads(keys, step, 4 * step - 1)) do
    if best == nil or older(h[1], best[1]) then
      best = h
    end
  end
  if best then
    redis.call('ZADD', keys[READY], best[2] - step, best[1])
    redis.call('SADD', keys[PROMO], best[1])
  end
end

local function claim(keys, m, now, lease, member, cls, lane, fields)
  -- A pop of the queued ticket `member` of class cls (lane: its lane in a lane queue, else
  -- nil), which the caller chose: queue.lua by class and FIFO, lanes.lua by the rotation.
  -- lease 0: it leaves the queue; > 0: leased until now + lease. Then the pop's
  -- bookkeeping, in TicketQueue.pop's order: digest, pop count, aging; `fields` are more
  -- meta fields to set with them (a lane queue's cursor). Returns pop's reply.
  local id, seq = job_id(member), seq_of(m, member)
  redis.call('ZREM', keys[READY], member)
  redis.call('ZREM', keys[IDS], id_key(member))
  local promoted = m.aging > 0 and redis.call('SISMEMBER', keys[PROMO], member) or 0
  local d, token = 0, ''
  if lease > 0 then
    d = redis.call('HINCRBY', keys[DELIV], member, 1)
    local lm = cls .. member
    redis.call('ZADD', keys[LEASED], string.format('%d', now + lease), lm)
    token = lm .. ':' .. d
  else
    d = (tonumber(redis.call('HGET', keys[DELIV], member)) or 0) + 1
    forget(keys, member, m)
  end
  fields[#fields + 1] = 'digest'
  fields[#fields + 1] = digest(m.digest, id, seq, cls, lane)
  fields[#fields + 1] = 'pops'
  fields[#fields + 1] = string.format('%d', m.pops + 1)
  if m.aging > 0 then
    local left = m.left - 1
    if left <= 0 then
      left = m.aging
      promote(keys, m)
    end
    fields[#fields + 1] = 'left'
    fields[#fields + 1] = left
  end
  redis.call('HSET', keys[META], unpack(fields))
  if redis.call('ZCARD', keys[READY]) > 0 then
    wake(keys)  -- work is left: pass the token on to the next waiter
  end
  local r = {id, cls, seq, promoted, d, token, m.pops % LO}
  if lane then
    r[8] = lane
  end
  return r
end

local function register(name, fn)
  -- Functions are named tq<V>_<name>: a version is part of every name a client calls.
  redis.register_function('tq' .. V .. '_' .. name, fn)
end
