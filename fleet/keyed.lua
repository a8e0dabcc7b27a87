-- keyed.lua: keyed lanes (issue 24; docs/lanes.md "Keyed lanes", docs/fleet.md "Keyed lane
-- layout"). A lane per key (an int 0..2**30-1 or a str of 1..64 bytes), made by its first
-- push, gone (no key, no field) once it holds no ticket; weights, bounds, in-flight
-- ceilings and pause per key, settable at any time. Loaded after core.lua, queue.lua,
-- lease.lua and lanes.lua; uses their helpers and changes none. Every function here takes
-- TWELVE keys: the ten of core.lua (one hash tag, one Cluster slot) and
--   ring   ZSET  the rings R_0..R_3 of serviceable lanes, one band of scores per class:
--                score = (3 - class) * 2**51 + t (t: meta's kt, one counter for every
--                ring, so the tail of R_c is its highest score), member = class digit ..
--                the lane's ordinal (decimal)
--   lanes  HASH  "k<key>" -> the lane's ordinal; "o<ordinal>" -> "<held>,<leased>,<key>"
--                (held: queued + leased tickets, what its bound counts); both only while the
--                lane holds a ticket. "s<key>" -> "<weight>,<bound>,<ceiling>,<paused>" only
--                while one of them is not the default (1, capacity, capacity, 0).
-- The ready set's score of a ticket is (3 - class) * 2**51 + its lane's ordinal, so each
-- (class, lane) FIFO is one score, FIFO by member (core's 24 bytes, then "." and the
-- ordinal: a ticket that comes back from a lease knows its lane). Ordinals come from meta's
-- ko counter, never reused (2**51 lanes made); scores stay below 2**53, exact as doubles,
-- and are always written with %d (Lua's tostring would round them to 14 digits).
-- Meta's extra fields: maxl (max lanes, 0: unbounded), nl (lanes now), ko, kt, u0..u3
-- (used_c: pops the head of R_c took in its current turn).
-- Cost: every push, pop, ack, release, remove is O(log n + log L) (a fixed number of ZSET
-- and hash calls), never a walk over the lanes; clear is O(n + L).
-- kage_heads (for age.lua's age, which a keyed queue's client calls with its twelve keys):
-- the keyed meta after expired leases went back, the server ms, the heads of the (class,
-- lane) FIFOs of the ready set as core's heads gives them, and whether some were left out.
-- At most AGE_LISTS per class, the lanes made first (lowest ordinals): so one age call is
-- at most 4 * AGE_LISTS short calls whatever the lane count (a walk of every lane's head
-- held the server 0.7 to 1.9 s at 100,000 lanes). The oldest of the heads read is then a
-- lower bound of the oldest ticket's age, not the oldest itself.
local kage_heads
local AGE_LISTS = 256
do
local RING, LANES = 11, 12
local KNKEYS = 12
local KB = 2251799813685248  -- 2**51: a class band of the ready and ring scores
local KEYMAX = 64            -- a str key's bytes
local WMAX = 32767           -- a weight's

local function ktypes(keys)
  -- core's check_keys for the twelve keys: the count, then the two keyed ones' types (the
  -- ten others are check_keys's, which meta and open_queue call).
  if #keys ~= KNKEYS then
    fail('TQARG', 'expected ' .. KNKEYS .. ' keys, got ' .. #keys)
  end
  for _, i in ipairs({RING, LANES}) do
    local ty = i == RING and 'zset' or 'hash'
    local t = redis.call('TYPE', keys[i])['ok']
    if t ~= 'none' and t ~= ty then
      fail('TQTYPE', 'key ' .. keys[i] .. ' holds a ' .. t .. ', ticketq keeps a ' .. ty ..
        ' there: another program uses this prefix and queue name')
    end
  end
  return {unpack(keys, 1, NKEYS)}
end

local function kmeta(keys)
  -- meta (core) for a keyed lane queue. As core's meta: the twelve keys' types are checked
  -- once per queue object, by kopen and kclient (ktypes, check_keys), not by every call;
  -- here only their count.
  if #keys ~= KNKEYS then
    fail('TQARG', 'expected ' .. KNKEYS .. ' keys, got ' .. #keys)
  end
  local m = meta({unpack(keys, 1, NKEYS)}, 'keyed')
  local r = redis.call('HMGET', keys[META], 'maxl', 'nl')
  m.maxl, m.nl = tonumber(r[1]), tonumber(r[2])
  return m
end

local function key_arg(v)
  -- A lane key as it arrives: 1..64 bytes (an int key is sent as its decimal).
  local s = tostring(v)
  if #s < 1 or #s > KEYMAX then
    fail('TQARG', 'lane key must be 1..' .. KEYMAX .. ' bytes, not ' .. #s)
  end
  return s
end

local function int_key(key)
  -- The int of a key that is canonical decimal 0..2**30-1 (the same lane as that int), else nil.
  if (key == '0' or string.find(key, '^[1-9]%d*$')) and #key <= 10 then
    local n = tonumber(key)
    if n <= MASK then
      return n
    end
  end
  return nil
end

local function fold_of(key)
  -- What the digest folds for a key: the int, or for a str key h = 5381, h = (h * 33 +
  -- byte) mod 2**30 over its bytes (ticketq.fleet._fold).
  local n = int_key(key)
  if n then
    return n
  end
  local h = 5381
  for i = 1, #key do
    h = (h * 33 + string.byte(key, i)) % LO
  end
  return h
end

local function reply_key(key)
  return int_key(key) or key
end

local function n2s(x)
  return string.format('%d', x)
end

local function kband(cls)
  return (3 - cls) * KB
end

local function ord_of(member)
  return tonumber(string.sub(member, 26))
end

local function rmember(cls, ord)
  return cls .. n2s(ord)
end

local function lane_get(keys, ord)
  -- held, leased, key of a lane by its ordinal
  local s = redis.call('HGET', keys[LANES], 'o' .. n2s(ord))
  local n, f, key = string.match(s, '^(%d+),(%d+),(.*)$')
  return tonumber(n), tonumber(f), key
end

local function lane_put(keys, m, ord, n, f, key)
  -- The lane's counts; a lane that holds nothing is dropped (its two fields go).
  if n == 0 then
    redis.call('HDEL', keys[LANES], 'o' .. n2s(ord), 'k' .. key)
    redis.call('HINCRBY', keys[META], 'nl', -1)
  else
    redis.call('HSET', keys[LANES], 'o' .. n2s(ord), n2s(n) .. ',' .. n2s(f) .. ',' .. key)
  end
end

local function settings(keys, m, key)
  -- weight, bound, ceiling, paused (0/1) of a key: its "s" field, else the defaults.
  local s = redis.call('HGET', keys[LANES], 's' .. key)
  if not s then
    return 1, m.cap, m.cap, 0
  end
  local w, b, c, p = string.match(s, '^(%d+),(%d+),(%d+),(%d)$')
  return tonumber(w), tonumber(b), tonumber(c), tonumber(p)
end

local function has_queued(keys, cls, ord)
  local s = n2s(kband(cls) + ord)
  return redis.call('ZRANGEBYSCORE', keys[READY], s, s, 'LIMIT', 0, 1)[1] ~= nil
end

local function to_tail(keys, cls, ord)
  -- Append the lane to the tail of R_cls (or move it there).
  local t = redis.call('HINCRBY', keys[META], 'kt', 1)
  redis.call('ZADD', keys[RING], n2s(kband(cls) + t), rmember(cls, ord))
end

local function ring_leave(keys, cls, ord)
  -- The lane leaves R_cls if it is in it; used_cls = 0 if it was the head.
  local rm = rmember(cls, ord)
  if redis.call('ZSCORE', keys[RING], rm) then
    local h = redis.call('ZRANGEBYSCORE', keys[RING], n2s(kband(cls)), '(' .. n2s(kband(cls) + KB),
      'LIMIT', 0, 1)[1]
    if h == rm then
      redis.call('HSET', keys[META], 'u' .. cls, 0)
    end
    redis.call('ZREM', keys[RING], rm)
  end
end

local function leave_all(keys, ord)
  for cls = 0, 3 do
    ring_leave(keys, cls, ord)
  end
end

local function join_all(keys, ord)
  -- A lane that became serviceable: to the tail of each R_c where it has a queued ticket
  -- and is not already, in class order 0..3. Tickets that could not pop before can now: a
  -- waiter blocked in pop_until is woken (resume, an ack under the ceiling, a raised
  -- ceiling), as a push wakes one; else it slept on to the end of its slice (2 s).
  local joined = false
  for cls = 0, 3 do
    if has_queued(keys, cls, ord) and not redis.call('ZSCORE', keys[RING], rmember(cls, ord)) then
      to_tail(keys, cls, ord)
      joined = true
    end
  end
  if joined then
    wake(keys)
  end
end

local function kenqueue(keys, cls, member)
  redis.call('ZADD', keys[READY], n2s(kband(cls) + ord_of(member)), member)
  redis.call('ZADD', keys[IDS], 0, id_key(member))
  wake(keys)
end

local function lease_over(keys, m, ord, n, f, key)
  -- A lease of the lane ended (ack, release, expiry, dead letter): counts stored (n, f are
  -- the new ones); if that brought it back under its ceiling, it joins the rings (a ticket
  -- that came back joins R_c by join_all too: the tail, no extra turn).
  lane_put(keys, m, ord, n, f, key)
  if n > 0 then
    local _, _, c, p = settings(keys, m, key)
    if p == 0 and f < c then
      join_all(keys, ord)
    end
  end
end

local function krequeue(keys, m, lm)
  -- core's requeue for a keyed lane: back to its lane's FIFO at its place, or dead.
  local cls = tonumber(string.sub(lm, 1, 1))
  local member = string.sub(lm, 2)
  redis.call('ZREM', keys[LEASED], lm)
  local ord = ord_of(member)
  local n, f, key = lane_get(keys, ord)
  local d = tonumber(redis.call('HGET', keys[DELIV], member)) or 0
  local out = 1
  if m.maxdel > 0 and d >= m.maxdel then
    bury(keys, m, cls, member, d, key)  -- the letter keeps its key: krevive puts it back there
    redis.call('HINCRBY', keys[META], 'buried', 1)
    n, out = n - 1, 2
  else
    kenqueue(keys, cls, member)
    redis.call('HINCRBY', keys[META], 'returned', 1)
  end
  lease_over(keys, m, ord, n, f - 1, key)
  return out
end

local function kreap(keys, m, now)
  local due = redis.call('ZRANGEBYSCORE', keys[LEASED], '-inf', now)
  for i = 1, #due do
    krequeue(keys, m, due[i])
  end
  if #due > 0 then
    redis.call('HINCRBY', keys[META], 'expired', #due)
  end
end

local function kmutation(keys, args, op, m, fn)
  -- core's mutation, with kreap: replayed if made before, else expired leases back first.
  local now = now_ms()
  return idem(keys, m, args, now, op, function()
    kreap(keys, m, now)
    return fn(now)
  end, op == 'pop' and pop_replayable or nil)
end

-- kopen: args cap (0: the queue must exist), first_seq, aging (must be 0), max_deliveries,
-- max_lanes (0: unbounded). Returns open's reply and max_lanes.
local function kopen(keys, args)
  local ten = ktypes(keys)
  local maxl = int_arg(args[5], 0, 0x1000000, 'max_lanes')
  if int_arg(args[3], 0, MASK, 'aging') ~= 0 then
    fail('TQARG', 'aging needs fixed lanes (keyed lanes have no aging in this release)')
  end
  local r = open_queue(ten, args, 'keyed', {'maxl', maxl, 'nl', 0, 'ko', 0, 'kt', 0, 'u0', 0,
    'u1', 0, 'u2', 0, 'u3', 0}, function(m)
      local have = tonumber(redis.call('HGET', keys[META], 'maxl'))
      if have ~= maxl then
        fail('TQCONFIG', 'queue ' .. keys[META] .. ' exists with max_lanes ' .. have ..
          '; asked for ' .. maxl .. ' (open it without a capacity to take its settings)')
      end
    end)
  r[6] = tonumber(redis.call('HGET', keys[META], 'maxl'))
  return r
end

local function kput(keys, m, id, cls, key, revive)
  -- kpush's work after its argument checks: the sequence number, or -1 queue full, -2 the
  -- lane at its bound, -3 a new key while max_lanes lanes exist, and (revive only: a dead
  -- letter is not put into a paused lane) -4 the lane is paused. Nothing written when
  -- refused. m.nl counts a lane it makes (krevive puts several letters in one call).
  if full(keys, m) then
    return -1
  end
  local ord = redis.call('HGET', keys[LANES], 'k' .. key)
  local _, b, c, p = settings(keys, m, key)
  local n, f = 0, 0
  if ord then
    ord = tonumber(ord)
    n, f = lane_get(keys, ord)
    if n >= b then
      return -2
    end
  elseif m.maxl > 0 and m.nl >= m.maxl then
    return -3
  end
  if revive and p == 1 then
    return -4
  end
  local base, seq = stamp(keys, m, id)
  m.lo = m.lo + 1  -- stamp moved the counter in meta: the next stamp of this call reads m
  if m.lo == LO then
    m.lo, m.hi = 0, m.hi + 1
  end
  if not ord then
    ord = redis.call('HINCRBY', keys[META], 'ko', 1)
    redis.call('HSET', keys[LANES], 'k' .. key, n2s(ord))
    redis.call('HINCRBY', keys[META], 'nl', 1)
    m.nl = m.nl + 1
  end
  lane_put(keys, m, ord, n + 1, f, key)
  kenqueue(keys, cls, base .. '.' .. n2s(ord))
  if p == 0 and f < c and not redis.call('ZSCORE', keys[RING], rmember(cls, ord)) then
    to_tail(keys, cls, ord)
  end
  return seq
end

-- kpush: args client, opno, job id, class, key. The sequence number; -1 queue full, -2
-- lane at its bound, -3 a new key while max_lanes lanes exist (checked in that order);
-- a refused push stores nothing and spends no number.
local function kpush(keys, args)
  local m = kmeta(keys)
  local id = int_arg(args[3], 0, MASK, 'job id')
  local cls = int_arg(args[4], 0, 3, 'priority')
  local key = key_arg(args[5])
  return kmutation(keys, args, 'push', m, function()
    return kput(keys, m, id, cls, key)
  end)
end

local function kchoose(keys)
  -- The head of the highest non-empty ring and its lane's oldest ticket of that class:
  -- member, class, ordinal, whether the lane has another ticket of the class; nil if
  -- every ring is empty. Two O(log) calls.
  local r = redis.call('ZRANGE', keys[RING], 0, 0, 'WITHSCORES')
  if #r == 0 then
    return nil
  end
  local cls = 3 - math.floor(tonumber(r[2]) / KB)
  local ord = tonumber(string.sub(r[1], 2))
  local s = n2s(kband(cls) + ord)
  local h = redis.call('ZRANGEBYSCORE', keys[READY], s, s, 'LIMIT', 0, 2)
  return h[1], cls, ord, h[2] ~= nil
end

-- kpop: args client, opno, lease_ms, as pop (queue.lua). Returns pop's reply and the key
-- (an int for a canonical decimal key in range, else the str): {id, class, seq, 0,
-- deliveries, token, pop number, key}, or {-1, ms to the next lease expiry (-1: none)}
-- when no serviceable lane has a ticket.
local function kpop(keys, args)
  local m = kmeta(keys)
  local lease = int_arg(args[3], 0, MASK, 'lease_ms')
  return kmutation(keys, args, 'pop', m, function(now)
    local member, cls, ord, more = kchoose(keys)
    if not member then
      return {-1, next_expiry(keys, now)}
    end
    local n, f, key = lane_get(keys, ord)
    local w, _, c = settings(keys, m, key)
    local id, seq = job_id(member), seq_of(m, member)
    redis.call('ZREM', keys[READY], member)
    redis.call('ZREM', keys[IDS], id_key(member))
    local d, token = 0, ''
    if lease > 0 then
      d = redis.call('HINCRBY', keys[DELIV], member, 1)
      local lm = cls .. member
      redis.call('ZADD', keys[LEASED], n2s(now + lease), lm)
      token = lm .. ':' .. d
      f = f + 1
    else
      d = (tonumber(redis.call('HGET', keys[DELIV], member)) or 0) + 1
      forget(keys, member)
      n = n - 1
    end
    local u = tonumber(redis.call('HGET', keys[META], 'u' .. cls)) + 1
    if f >= c then
      leave_all(keys, ord)  -- at its ceiling: no longer serviceable, out of every ring
      u = 0
    elseif not more then
      redis.call('ZREM', keys[RING], rmember(cls, ord))
      u = 0
    elseif u >= w then
      to_tail(keys, cls, ord)
      u = 0
    end
    lane_put(keys, m, ord, n, f, key)
    redis.call('HSET', keys[META], 'u' .. cls, u,
      'digest', digest(m.digest, id, seq, cls, fold_of(key)), 'pops', n2s(m.pops + 1))
    if redis.call('ZCARD', keys[RING]) > 0 then
      wake(keys)  -- work is left: pass the token on to the next waiter
    end
    return {id, cls, seq, 0, d, token, m.pops % LO, reply_key(key)}
  end)
end

-- kpeek: the job id kpop would return, or -1.
local function kpeek(keys, args)
  local m = kmeta(keys)
  kreap(keys, m, now_ms())
  local member = kchoose(keys)
  if not member then
    return -1
  end
  return job_id(member)
end

-- kremove: args client, opno, job id. The oldest queued ticket of that id, any lane and
-- class: 1, or 0. Its lane leaves R_c if that was its last class-c ticket.
local function kremove(keys, args)
  local m = kmeta(keys)
  local id = int_arg(args[3], 0, MASK, 'job id')
  return kmutation(keys, args, 'remove', m, function()
    local hex = string.format('%08x', id)
    local r = redis.call('ZRANGEBYLEX', keys[IDS], '[' .. hex, '(' .. hex .. 'g', 'LIMIT', 0, 1)
    if #r == 0 then
      return 0
    end
    local member = of_id_key(r[1])
    local cls = 3 - math.floor(tonumber(redis.call('ZSCORE', keys[READY], member)) / KB)
    local ord = ord_of(member)
    redis.call('ZREM', keys[IDS], r[1])
    redis.call('ZREM', keys[READY], member)
    forget(keys, member)
    local n, f, key = lane_get(keys, ord)
    if not has_queued(keys, cls, ord) then
      ring_leave(keys, cls, ord)
    end
    lane_put(keys, m, ord, n - 1, f, key)
    return 1
  end)
end

local function kheld(keys, token)
  -- lease.lua's held for a keyed member: "<class><24 hex>.<ordinal>:<deliveries>".
  local colon = string.find(token, ':', 1, true)
  if not colon or colon < 28 or string.sub(token, 26, 26) ~= '.' then
    fail('TQARG', 'not a lease token: ' .. token)
  end
  return held_at(keys, token, colon)
end

local function kon_lease(keys, args, op, fn)
  local m = kmeta(keys)
  return kmutation(keys, args, op, m, function()
    local lm = kheld(keys, args[3])
    if not lm then
      return 0
    end
    return fn(m, lm)
  end)
end

-- kack, krelease, ktouch, kdead: lease.lua's ack, release, touch, dead for a keyed queue.
local function kack(keys, args)
  return kon_lease(keys, args, 'ack', function(m, lm)
    redis.call('ZREM', keys[LEASED], lm)
    local member = string.sub(lm, 2)
    forget(keys, member)
    redis.call('HINCRBY', keys[META], 'acked', 1)
    local ord = ord_of(member)
    local n, f, key = lane_get(keys, ord)
    lease_over(keys, m, ord, n - 1, f - 1, key)
    return 1
  end)
end

local function krelease(keys, args)
  return kon_lease(keys, args, 'release', function(m, lm)
    return krequeue(keys, m, lm)
  end)
end

local function ktouch(keys, args)
  local m = kmeta(keys)
  local lease = int_arg(args[2], 1, MASK, 'lease_ms')
  local now = now_ms()
  kreap(keys, m, now)
  local lm = kheld(keys, args[1])
  if not lm then
    return 0
  end
  redis.call('ZADD', keys[LEASED], 'XX', n2s(now + lease), lm)
  return 1
end

local function kdead(keys, args)
  -- lease.lua's dead; each letter has a fifth value, its key (-1: a letter written before
  -- keys were recorded).
  local m = kmeta(keys)
  local n = int_arg(args[3], 1, MASK, 'count')
  return kmutation(keys, args, 'dead', m, function()
    return take_letters(keys, n, function(key)
      return key and reply_key(key) or -1
    end)
  end)
end

-- krevive: lease.lua's revive for a keyed queue: each letter back into its own key's lane
-- (a letter without a key: key 0) as kpush puts a ticket, new sequence number, subject to
-- the lane's bound, max_lanes, its ceiling (queued, pops under it) and pause: a paused
-- lane refuses the letter (-4), as do a full queue (-1), a lane at its bound (-2) and
-- max_lanes lanes without this key's (-3). Reply as revive's, the lane being the key
-- (reply_key); the refused letter's fourth value: the lane's bound (-2), max_lanes (-3), 0.
local function krevive(keys, args)
  local m = kmeta(keys)
  local n = int_arg(args[3], 1, REVIVE_MAX, 'count')
  return kmutation(keys, args, 'revive', m, function()
    return put_letters(keys, n, function(id, c, key)
      key = key or '0'
      local r = kput(keys, m, id, c, key, true)
      if r < 0 then
        local _, b = settings(keys, m, key)
        return r, reply_key(key), r == -2 and b or r == -3 and m.maxl or 0
      end
      return r, reply_key(key)
    end)
  end)
end

-- kinfo: info's reply, then lanes (now) and max_lanes (0: unbounded).
local function kinfo(keys, args)
  local m = kmeta(keys)
  local now = now_ms()
  kreap(keys, m, now)
  local out = {redis.call('ZCARD', keys[READY]), redis.call('ZCARD', keys[LEASED]), m.cap,
    m.digest}
  for s = 0, 3 do
    out[5 + s] = redis.call('ZCOUNT', keys[READY], n2s(s * KB), '(' .. n2s((s + 1) * KB))
  end
  out[9] = redis.call('LLEN', keys[DEAD])
  out[10] = next_expiry(keys, now)
  out[11] = tonumber(redis.call('HGET', keys[META], 'nl'))
  out[12] = m.maxl
  return out
end

-- klane: args key. {exists 0/1, queued LOW, NORMAL, HIGH, CRITICAL, leased, weight, bound,
-- ceiling, paused}. Reads only (expired leases go back first, as info).
local function klane(keys, args)
  local m = kmeta(keys)
  local key = key_arg(args[1])
  kreap(keys, m, now_ms())
  local w, b, c, p = settings(keys, m, key)
  local ord = redis.call('HGET', keys[LANES], 'k' .. key)
  local out = {0, 0, 0, 0, 0, 0, w, b, c, p}
  if ord then
    ord = tonumber(ord)
    local _, f = lane_get(keys, ord)
    out[1], out[6] = 1, f
    for cls = 0, 3 do
      local s = n2s(kband(cls) + ord)
      out[2 + cls] = redis.call('ZCOUNT', keys[READY], s, s)
    end
  end
  return out
end

-- kset: args key, weight, bound, ceiling, paused; "" leaves one as it is. Sets them at
-- once; a lane that stops being serviceable leaves every ring (used_c = 0 where it was the
-- head), one that becomes serviceable joins the tail of each ring where it has a ticket.
-- A key whose settings are all the defaults again keeps no field. Returns {weight, bound,
-- ceiling, paused}. Changing nothing twice is harmless: no replay record.
local function kset(keys, args)
  local m = kmeta(keys)
  local key = key_arg(args[1])
  local w0, b0, c0, p0 = settings(keys, m, key)
  local w, b, c, p = w0, b0, c0, p0
  if args[2] ~= '' then w = int_arg(args[2], 1, WMAX, 'weight') end
  if args[3] ~= '' then b = int_arg(args[3], 1, m.cap, 'bound') end
  if args[4] ~= '' then c = int_arg(args[4], 1, m.cap, 'ceiling') end
  if args[5] ~= '' then p = int_arg(args[5], 0, 1, 'paused') end
  kreap(keys, m, now_ms())
  if w == 1 and b == m.cap and c == m.cap and p == 0 then
    redis.call('HDEL', keys[LANES], 's' .. key)
  else
    redis.call('HSET', keys[LANES], 's' .. key, w .. ',' .. b .. ',' .. c .. ',' .. p)
  end
  local ord = redis.call('HGET', keys[LANES], 'k' .. key)
  if ord then
    ord = tonumber(ord)
    local _, f = lane_get(keys, ord)
    local was, now = p0 == 0 and f < c0, p == 0 and f < c
    if was and not now then
      leave_all(keys, ord)
    elseif now and not was then
      join_all(keys, ord)
    end
  end
  return {w, b, c, p}
end

-- kscan: args cursor, count. One HSCAN step over the lanes: {next cursor, then per lane
-- found: key, queued, leased}. fleetctl's busiest lanes walk it (O(L) in all, in steps).
local function kscan(keys, args)
  kmeta(keys)
  local cur = tostring(args[1])
  if not string.find(cur, '^%d+$') or #cur > 20 then
    fail('TQARG', 'cursor must be what kscan returned (0 to start), not ' .. cur)
  end
  local count = int_arg(args[2], 1, 100000, 'count')
  local r = redis.call('HSCAN', keys[LANES], cur, 'MATCH', 'o*', 'COUNT', count)
  local out = {r[1]}
  for i = 1, #r[2], 2 do
    local n, f, key = string.match(r[2][i + 1], '^(%d+),(%d+),(.*)$')
    out[#out + 1] = reply_key(key)
    out[#out + 1] = tonumber(n) - tonumber(f)
    out[#out + 1] = tonumber(f)
  end
  return out
end

-- kclear: args client, opno. Drops every queued and leased ticket and every lane (their
-- settings stay, as a fixed lane queue's weights do), resets the digest, the rings and
-- used_c; the push counter goes on; dead letters stay. O(n + L).
local function kclear(keys, args)
  local m = kmeta(keys)
  return idem(keys, m, args, now_ms(), 'clear', function()
    redis.call('DEL', keys[READY], keys[IDS], keys[PROMO], keys[LEASED], keys[DELIV], keys[WAKE],
      keys[RING])
    local cur = '0'
    repeat
      local r = redis.call('HSCAN', keys[LANES], cur, 'COUNT', 1000)
      cur = r[1]
      local drop = {}
      for i = 1, #r[2], 2 do
        local f = r[2][i]
        if string.sub(f, 1, 1) ~= 's' then
          drop[#drop + 1] = f
        end
      end
      if #drop > 0 then
        redis.call('HDEL', keys[LANES], unpack(drop))
      end
    until cur == '0'
    redis.call('HSET', keys[META], 'digest', DIG0, 'left', m.aging, 'nl', 0, 'u0', 0, 'u1', 0,
      'u2', 0, 'u3', 0)
    return 1
  end)
end

-- ktickets: every queued ticket of a serviceable lane in the order pops would take them were
-- nothing pushed and no lease to end (each class from its ring's head, whose turn has used
-- u_c pops, turns of each lane's weight now), flat: id, class, seq, 0, key, ... Tickets of
-- lanes that are not serviceable (paused, at their ceiling) are not listed: they pop only
-- once that changes. O(n + L) calls: for audits and tests, not for a hot path. args: none,
-- or a limit k >= 1: the first k only, reading at most k lanes of each ring and k tickets of
-- each lane (O(k^2) calls: fleetctl peek, tickets --limit), whatever n and L.
local function ktickets(keys, args)
  local m = kmeta(keys)
  kreap(keys, m, now_ms())
  local out = {}
  local limit = 0
  if args[1] ~= nil and args[1] ~= '' and args[1] ~= '0' then
    limit = int_arg(args[1], 1, MASK, 'limit')
  end
  local u = redis.call('HMGET', keys[META], 'u0', 'u1', 'u2', 'u3')
  for cls = 3, 0, -1 do
    local band = kband(cls)
    local q = {}
    local rem = limit - #out / 5  -- tickets still wanted (limit > 0)
    if limit > 0 and rem <= 0 then
      break
    end
    local lim = limit > 0 and {'LIMIT', 0, rem} or {}
    for _, rm in ipairs(redis.call('ZRANGEBYSCORE', keys[RING], n2s(band), '(' .. n2s(band + KB), unpack(lim))) do
      local ord = tonumber(string.sub(rm, 2))
      local _, _, key = lane_get(keys, ord)
      local s = n2s(band + ord)
      q[#q + 1] = {key, (settings(keys, m, key)), redis.call('ZRANGEBYSCORE', keys[READY], s, s, unpack(lim)), 1}
    end
    local used = tonumber(u[cls + 1]) or 0
    local i = 1
    while i <= #q do
      local l = q[i]
      -- the head pops at least once, then until its turn (weight now) is used up or it is empty
      local take = math.min(math.max(l[2] - used, 1), #l[3] - l[4] + 1)
      for k = l[4], l[4] + take - 1 do
        out[#out + 1] = job_id(l[3][k])
        out[#out + 1] = cls
        out[#out + 1] = seq_of(m, l[3][k])
        out[#out + 1] = 0
        out[#out + 1] = reply_key(l[1])
      end
      l[4] = l[4] + take
      if l[4] <= #l[3] then
        q[#q + 1] = l  -- rotates to the tail
      end
      i, used = i + 1, 0
    end
  end
  if limit > 0 then
    -- a lane read short (k tickets) may show as emptied after its k-th: only past the limit
    for j = #out, limit * 5 + 1, -1 do
      out[j] = nil
    end
  end
  return out
end

-- kdestroy: every key of the queue, the two keyed ones too.
local function kdestroy(keys, args)
  check_keys(ktypes(keys))
  return redis.call('DEL', unpack(keys))
end

local function kclient(keys, args)
  check_keys(ktypes(keys))  -- a new client object checks every key's type once, as client
  local m = kmeta(keys)
  return new_client(keys, m.made)
end

kage_heads = function(keys)
  local m = kmeta(keys)
  local now = now_ms()
  kreap(keys, m, now)
  local out, partial = {}, false
  for cls = 0, 3 do
    local lo, hi, n = kband(cls), kband(cls) + KB - 1, 0
    while lo <= hi do
      local r = redis.call('ZRANGEBYSCORE', keys[READY], n2s(lo), n2s(hi), 'WITHSCORES', 'LIMIT', 0, 1)
      if not r[1] then
        break
      end
      if n == AGE_LISTS then
        partial = true
        break
      end
      n = n + 1
      out[#out + 1] = {r[1], tonumber(r[2])}
      lo = tonumber(r[2]) + 1
    end
  end
  return m, now, out, partial
end

register('kopen', kopen)
register('kclient', kclient)
register('kpush', kpush)
register('kpop', kpop)
register('kpeek', kpeek)
register('kremove', kremove)
register('kack', kack)
register('krelease', krelease)
register('ktouch', ktouch)
register('kdead', kdead)
register('krevive', krevive)
register('kinfo', kinfo)
register('klane', klane)
register('kset', kset)
register('kscan', kscan)
register('kclear', kclear)
register('ktickets', ktickets)
register('kdestroy', kdestroy)
end
