-- queue.lua: the ticket queue itself, ticketq.TicketQueue's contract on the server: open,
-- push, pop (optionally leased: lease.lua acks), peek, remove, info, tickets, clear,
-- destroy. Loaded after core.lua (its helpers and the KEYS layout are documented there).
-- Every function that changes the queue first returns expired leases to their places
-- (reap) and checks the queue's layout version (meta). open, push, pop, peek and tickets
-- are a plain queue's (a lane queue has its own in lanes.lua); remove, info, clear and
-- destroy, and lease.lua's, serve both kinds.

local BULK = 4000  -- arguments per redis.call at most: Lua 5.1's unpack gives up at 8000

local function bulk(cmd, key, a)
  -- redis.call(cmd, key, a[1], a[2], ...) in slices of BULK (even: ZADD's and HSET's pairs
  -- stay whole), the replies of a command that returns a list (HMGET) joined in order. A
  -- batch of 4096 tickets has 8192 ZADD arguments: one unpack of them failed the call part
  -- way ("too many results to unpack"), after the push counter had moved.
  local out = {}
  for i = 1, #a, BULK do
    local r = redis.call(cmd, key, unpack(a, i, math.min(i + BULK - 1, #a)))
    if type(r) == 'table' then
      for j = 1, #r do
        out[#out + 1] = r[j]
      end
    end
  end
  return out
end

local function open_queue(keys, args, kind, extra, check)
  -- open's work for both kinds: args cap (0: the queue must exist), first_seq, aging,
  -- max_deliveries. Creates the queue if it does not exist and cap > 0, with `extra` meta
  -- fields (a lane queue's), else checks that the settings given match it (and check(m),
  -- a lane queue's own). Every check comes before the first write.
  -- Returns {cap, first_seq, aging, max_deliveries, client number}.
  check_keys(keys)
  local cap = int_arg(args[1], 0, 0x1000000, 'capacity')
  local first = int_arg(args[2], 0, MASK, 'first_seq')
  local aging = int_arg(args[3], 0, MASK, 'aging')
  local maxdel = int_arg(args[4], 0, MASK, 'max_deliveries')
  local made
  if redis.call('EXISTS', keys[META]) == 0 then
    if cap == 0 then
      fail('TQNOQUEUE', 'no queue at ' .. keys[META] .. ' (create it with a capacity)')
    end
    -- made: the creation stamp in client numbers, the server's TIME in microseconds.
    local t = redis.call('TIME')
    made = t[1] .. string.format('%06d', tonumber(t[2]))
    redis.call('HSET', keys[META], 'v', kind == 'plain' and V or V .. ':' .. kind, 'cap', cap,
      'first', first, 'aging', aging, 'maxdel', maxdel, 'hi', 0, 'lo', 0, 'left', aging,
      'digest', DIG0, 'clients', 0, 'pops', 0, 'made', made, unpack(extra or {}))
  else
    local m = meta(keys, kind)
    if cap > 0 and (m.cap ~= cap or m.first ~= first or m.aging ~= aging or m.maxdel ~= maxdel) then
      fail('TQCONFIG', 'queue ' .. keys[META] .. ' exists with capacity ' .. m.cap ..
        ', first_seq ' .. m.first .. ', aging ' .. m.aging .. ', max_deliveries ' .. m.maxdel ..
        '; asked for ' .. cap .. ', ' .. first .. ', ' .. aging .. ', ' .. maxdel ..
        ' (open it without a capacity to take its settings)')
    end
    if cap > 0 and check then
      check(m)
    end
    cap, first, aging, maxdel, made = m.cap, m.first, m.aging, m.maxdel, m.made
  end
  return {cap, first, aging, maxdel, new_client(keys, made)}
end

-- open: args cap (0: the queue must exist), first_seq, aging, max_deliveries.
-- Creates the queue if it does not exist and cap > 0; otherwise checks that the settings
-- given match it. Returns {cap, first_seq, aging, max_deliveries, client number}.
local function open(keys, args)
  return open_queue(keys, args, 'plain')
end

local function full(keys, m)
  -- Queued plus leased tickets reach the capacity (a leased ticket may come back).
  return redis.call('ZCARD', keys[READY]) + redis.call('ZCARD', keys[LEASED]) >= m.cap
end

-- push: args client, opno, job id, class. Returns the sequence number, or -1 when the
-- queue is full: queued plus leased tickets (a leased ticket may come back) reach the
-- capacity. A refused push stores nothing and spends no sequence number.
local function push(keys, args)
  local m = meta(keys, 'plain', true)
  local id = int_arg(args[3], 0, MASK, 'job id')
  local cls = int_arg(args[4], 0, 3, 'priority')
  local now = now_ms()
  return idem(keys, m, args, now, 'push', function()
    -- Expired leases go back first only when the queue looks full: a push takes no ticket,
    -- so the only thing reaping can change for it is the count (a ticket delivered
    -- max_deliveries times goes to the dead list and frees its place); pops, peeks and
    -- info reap always. (One command less per push: issue 21.)
    if full(keys, m) then
      reap(keys, meta(keys, 'plain'), now)
      if full(keys, m) then
        return -1
      end
    end
    local member, seq = stamp(keys, m, id)
    enqueue(keys, cls, member)
    return seq
  end)
end

-- pushn (push_many): args client, opno, n, then n pairs job id, class. Every pair is
-- checked first (TQARG names the first bad one, nothing pushed). All n are pushed, in
-- order, or none: -1 when they do not all fit (queued plus leased plus n > capacity).
-- Returns the n sequence numbers. One replay record for the call. O(n log N) in the
-- server, in a fixed number of commands (one ZADD each for ready and ids).
local BATCH_MAX = 4096
local function pushn(keys, args)
  local m = meta(keys, 'plain', true)
  local n = int_arg(args[3], 1, BATCH_MAX, 'count')
  if #args ~= 3 + 2 * n then
    fail('TQARG', 'push_many: ' .. n .. ' (job id, priority) pairs expected, got ' ..
      (#args - 3) .. ' values')
  end
  local ids, cls = {}, {}
  for i = 1, n do
    ids[i] = int_arg(args[2 + 2 * i], 0, MASK, 'job id')
    cls[i] = int_arg(args[3 + 2 * i], 0, 3, 'priority')
  end
  local now = now_ms()
  local function fits()
    return redis.call('ZCARD', keys[READY]) + redis.call('ZCARD', keys[LEASED]) + n <= m.cap
  end
  return idem(keys, m, args, now, 'pushn', function()
    if not fits() then
      reap(keys, meta(keys, 'plain'), now)  -- as push: only when it looks full
      if not fits() then
        return -1
      end
    end
    if m.hi >= HI_END or (m.hi == HI_END - 1 and m.lo + n > LO) then
      fail('TQEXHAUSTED', 'queue ' .. keys[META] .. ' has used all 2**62 sequence counters')
    end
    local zr, zi, out = {}, {}, {}
    local hi, lo = m.hi, m.lo
    for i = 1, n do
      local member = string.format('%08x%08x%08x', hi, lo, ids[i])
      out[i] = (m.first + lo) % LO
      zr[2 * i - 1] = 3 - cls[i]
      zr[2 * i] = member
      zi[2 * i - 1] = 0
      zi[2 * i] = id_key(member)
      lo = lo + 1
      if lo == LO then
        lo, hi = 0, hi + 1
      end
    end
    redis.call('HSET', keys[META], 'hi', string.format('%d', hi), 'lo', lo)
    bulk('ZADD', keys[READY], zr)
    bulk('ZADD', keys[IDS], zi)
    wake(keys)
    return out
  end)
end

-- pop: args client, opno, lease_ms (0: the ticket leaves the queue at once, as
-- TicketQueue.pop; > 0: it is leased until the server's TIME + lease_ms, and comes back to
-- its place unless acked). Returns {id, class, seq, promoted 0/1, deliveries, token ("" for
-- no lease), pop number (pops of this queue before this one, mod 2**30: the server's order
-- of pops, whichever client made them)}, or {-1, ms until the next lease expires (-1:
-- none)} when nothing is queued.
local function head(keys)
  -- A plain queue's next ticket: the first of the ready set (highest class, then FIFO).
  -- As every chooser: its member, class, lane (nil: no lanes) and the meta fields its pop
  -- sets (none here); nil when nothing is queued.
  local r = redis.call('ZRANGE', keys[READY], 0, 0, 'WITHSCORES')
  if #r == 0 then
    return nil
  end
  return r[1], 3 - tonumber(r[2]), nil, {}
end

local function popper(kind, choose)
  -- The pop function of a kind of queue, whose next ticket choose(keys) names.
  return function(keys, args)
    local m = meta(keys, kind)
    local lease = int_arg(args[3], 0, MASK, 'lease_ms')
    return mutation(keys, args, 'pop', m, function(now)
      local member, cls, lane, fields = choose(keys)
      if not member then
        return {-1, next_expiry(keys, now)}
      end
      return claim(keys, m, now, lease, member, cls, lane, fields)
    end)
  end
end

-- The batch pops (popn, and lease.lua's ackpop) reply flat, so a board client reads them
-- without nesting: {k, ms until the next lease expires (-1: none; only read when k = 0),
-- then k tickets of 7 values each, as pop's reply: id, class, seq, promoted, deliveries,
-- token, pop number}.
local function take_many(keys, m, now, lease, count)
  -- Pops up to count tickets as count pops would, in one go. Without aging (m.aging 0)
  -- nothing moves between pops, so the next count tickets are the first count members of
  -- the ready set, taken with a fixed number of commands; with aging, a promotion may come
  -- between two pops, so it runs claim once per ticket (and reads meta's counters again).
  local out = {0, -1}
  if m.aging > 0 then
    local k = 0
    for i = 1, count do
      local member, cls, lane, fields = head(keys)
      if not member then
        break
      end
      local r = claim(keys, m, now, lease, member, cls, lane, fields)
      for j = 1, 7 do
        out[#out + 1] = r[j]
      end
      k = k + 1
      local c = redis.call('HMGET', keys[META], 'digest', 'pops', 'left')
      m.digest, m.pops, m.left = tonumber(c[1]), tonumber(c[2]), tonumber(c[3])
    end
    out[1] = k
    if k == 0 then
      out[2] = next_expiry(keys, now)
    end
    return out
  end
  local r = redis.call('ZRANGE', keys[READY], 0, count - 1, 'WITHSCORES')
  local k = #r / 2
  if k == 0 then
    out[2] = next_expiry(keys, now)
    return out
  end
  out[1] = k
  local members, idk = {}, {}
  for i = 1, k do
    members[i] = r[2 * i - 1]
    idk[i] = id_key(members[i])
  end
  bulk('ZREM', keys[READY], members)
  bulk('ZREM', keys[IDS], idk)
  local dl = bulk('HMGET', keys[DELIV], members)
  local g, pops = m.digest, m.pops
  local lz, dz, had = {}, {}, false
  local exp = string.format('%d', now + lease)
  for i = 1, k do
    local member = members[i]
    local cls = 3 - tonumber(r[2 * i])
    local id, seq = job_id(member), seq_of(m, member)
    local d = (tonumber(dl[i]) or 0) + 1
    had = had or dl[i] ~= false
    local token = ''
    if lease > 0 then
      lz[#lz + 1] = exp
      lz[#lz + 1] = cls .. member
      dz[#dz + 1] = member
      dz[#dz + 1] = d
      token = cls .. member .. ':' .. d
    end
    g = digest(g, id, seq, cls, nil)
    local o = #out
    out[o + 1], out[o + 2], out[o + 3], out[o + 4] = id, cls, seq, 0
    out[o + 5], out[o + 6], out[o + 7] = d, token, pops % LO
    pops = pops + 1
  end
  if lease > 0 then
    bulk('HSET', keys[DELIV], dz)
    bulk('ZADD', keys[LEASED], lz)
  elseif had then
    bulk('HDEL', keys[DELIV], members)
  end
  m.digest, m.pops = g, pops
  redis.call('HSET', keys[META], 'digest', g, 'pops', string.format('%d', pops))
  if redis.call('ZCARD', keys[READY]) > 0 then
    wake(keys)
  end
  return out
end

local function many_replayable(keys, r, now, first)
  -- A batch pop's recorded reply (its tickets from index `first`), sent again without the
  -- tickets whose lease no longer holds (they went back to the queue: pop_replayable's
  -- rule, per ticket); tickets popped without a lease left the queue and stay in it.
  local out = {}
  for i = 1, first - 1 do
    out[i] = r[i]
  end
  local k = 0
  for i = 0, r[first] - 1 do
    local b = first + 2 + 7 * i
    if r[b + 5] == '' or holds(keys, r[b + 5], now) then
      for j = 0, 6 do
        out[#out + 1] = r[b + j]
      end
      k = k + 1
    end
  end
  table.insert(out, first, k)
  table.insert(out, first + 1, r[first + 1])
  return out
end

-- popn (pop_many): args client, opno, lease_ms, count (1..4096). Up to count tickets, as
-- count pops in a row would give them (the take_many reply above). Replayed while its
-- leases hold (many_replayable). O(count log N).
local function popn(keys, args)
  local m = meta(keys, 'plain')
  local lease = int_arg(args[3], 0, MASK, 'lease_ms')
  local count = int_arg(args[4], 1, BATCH_MAX, 'count')
  return mutation(keys, args, 'popn', m, function(now)
    return take_many(keys, m, now, lease, count)
  end, function(keys, r, now)
    return many_replayable(keys, r, now, 1)
  end)
end

-- peek: the job id of the next ticket, or -1 when nothing is queued.
local function peeker(kind, choose)
  return function(keys, args)
    local m = meta(keys, kind)
    reap(keys, m, now_ms())
    local member = choose(keys)
    if not member then
      return -1
    end
    return job_id(member)
  end
end

-- remove: args client, opno, job id. Removes the oldest queued (not leased) ticket with
-- that id: 1, or 0 if there is none. O(log n) through the ids index.
local function remove(keys, args)
  local m = meta(keys)
  local id = int_arg(args[3], 0, MASK, 'job id')
  return mutation(keys, args, 'remove', m, function()
    local hex = string.format('%08x', id)
    local r = redis.call('ZRANGEBYLEX', keys[IDS], '[' .. hex, '(' .. hex .. 'g', 'LIMIT', 0, 1)
    if #r == 0 then
      return 0
    end
    local member = of_id_key(r[1])
    redis.call('ZREM', keys[IDS], r[1])
    redis.call('ZREM', keys[READY], member)
    forget(keys, member)
    return 1
  end)
end

-- info: {queued, leased, capacity, digest, CRITICAL, HIGH, NORMAL, LOW queued, dead-lettered,
-- ms to the next lease expiry or -1}.
local function info(keys, args)
  local m = meta(keys)
  local now = now_ms()
  reap(keys, m, now)
  local out = {redis.call('ZCARD', keys[READY]), redis.call('ZCARD', keys[LEASED]), m.cap,
    m.digest}
  local step = m.lanes and BAND or 1
  for s = 0, 3 do
    out[5 + s] = redis.call('ZCOUNT', keys[READY], s * step, s * step + step - 1)
  end
  out[9] = redis.call('LLEN', keys[DEAD])
  out[10] = next_expiry(keys, now)
  return out
end

-- tickets: every queued ticket in pop order, flat: id, class, seq, promoted, ... O(n):
-- for audits and tests (ticketq.audit.tickets), not for a hot path.
local function tickets(keys, args)
  local m = meta(keys, 'plain')
  reap(keys, m, now_ms())
  local r = redis.call('ZRANGE', keys[READY], 0, -1, 'WITHSCORES')
  local out = {}
  for i = 1, #r, 2 do
    out[#out + 1] = job_id(r[i])
    out[#out + 1] = 3 - tonumber(r[i + 1])
    out[#out + 1] = seq_of(m, r[i])
    out[#out + 1] = redis.call('SISMEMBER', keys[PROMO], r[i])
  end
  return out
end

-- clear: args client, opno. Drops every queued and leased ticket, resets the digest and
-- the aging count (and a lane queue's cursors and lane counts); the push counter goes on
-- (a logical clock never goes back). The dead-letter list stays.
local function clear(keys, args)
  local m = meta(keys)
  return idem(keys, m, args, now_ms(), 'clear', function()
    redis.call('DEL', keys[READY], keys[IDS], keys[PROMO], keys[LEASED], keys[DELIV], keys[WAKE])
    local fields = {'digest', DIG0, 'left', m.aging}
    if m.lanes then
      for c = 0, 3 do
        fields[#fields + 1] = 'c' .. c
        fields[#fields + 1] = 0
      end
      for l = 0, m.lanes - 1 do
        fields[#fields + 1] = 'n' .. l
        fields[#fields + 1] = 0
      end
    end
    redis.call('HSET', keys[META], unpack(fields))
    return 1
  end)
end

-- destroy: deletes every key of the queue, settings and counter included.
local function destroy(keys, args)
  check_keys(keys)
  return redis.call('DEL', unpack(keys))
end

-- client: a new client number for this queue (a forked process's, or one whose call
-- numbers ran out), as open gives. Either kind of queue.
local function client(keys, args)
  check_keys(keys)  -- a new client object checks every key's type once (meta: the rest)
  local m = meta(keys)
  return new_client(keys, m.made)
end

register('open', open)
register('client', client)
register('push', push)
register('pop', popper('plain', head))
register('pushn', pushn)
register('popn', popn)
register('peek', peeker('plain', head))
register('remove', remove)
register('info', info)
register('tickets', tickets)
register('clear', clear)
register('destroy', destroy)
