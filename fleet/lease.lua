-- lease.lua: what happens to a leased ticket after pop(lease_ms > 0): ack (done), release
-- (not done: back now), touch (still working: extend the lease), and the dead-letter list.
-- Loaded after core.lua and queue.lua.
--
-- A lease token is "<class><ready member>:<deliveries>" as pop returned it (the ready
-- member is 24 bytes, 25 in a lane queue). The delivery count fences it: once a lease
-- expired and the ticket was leased again, the first holder's token no longer matches, so
-- its late ack or release changes nothing (0).

local function held_at(keys, token, colon)
  -- The leased member of a token whose ':' is at `colon` (its shape checked by the caller:
  -- held here, keyed.lua's kheld) if it still holds its lease, this very delivery, or nil.
  local lm = string.sub(token, 1, colon - 1)
  if not redis.call('ZSCORE', keys[LEASED], lm) then
    return nil
  end
  if redis.call('HGET', keys[DELIV], string.sub(lm, 2)) ~= string.sub(token, colon + 1) then
    return nil
  end
  return lm
end

local function held(keys, token)
  -- The leased member of a token that still holds its lease, or nil.
  local colon = string.find(token, ':', 1, true)
  if colon ~= 26 and colon ~= 27 then
    fail('TQARG', 'not a lease token: ' .. token)
  end
  return held_at(keys, token, colon)
end

local function on_lease(keys, args, op, fn)
  -- args client, opno, token: fn(m, leased member) if the token still holds its lease, else 0.
  local m = meta(keys)
  return mutation(keys, args, op, m, function()
    local lm = held(keys, args[3])
    if not lm then
      return 0
    end
    return fn(m, lm)
  end)
end

-- ack: the job is done: the ticket leaves for good. 1, or 0 when the lease is no longer held
-- (it expired: the ticket is queued again, or was leased by another consumer; the job runs
-- again: at-least-once).
local function ack(keys, args)
  return on_lease(keys, args, 'ack', function(m, lm)
    redis.call('ZREM', keys[LEASED], lm)
    forget(keys, string.sub(lm, 2), m)
    redis.call('HINCRBY', keys[META], 'acked', 1)
    return 1
  end)
end

-- release: the job was not done: the ticket goes back to its place at once (1), or to the
-- dead-letter list if it has been delivered max_deliveries times (2); 0 when the lease is no
-- longer held.
local function release(keys, args)
  return on_lease(keys, args, 'release', function(m, lm)
    return requeue(keys, m, lm)
  end)
end

-- touch: args token, lease_ms. Extends a held lease to the server's TIME + lease_ms: 1, or
-- 0 when it is no longer held. (Idempotent by nature: no replay record.)
local function touch(keys, args)
  local m = meta(keys)
  local lease = int_arg(args[2], 1, MASK, 'lease_ms')
  local now = now_ms()
  reap(keys, m, now)
  local lm = held(keys, args[1])
  if not lm then
    return 0
  end
  redis.call('ZADD', keys[LEASED], 'XX', string.format('%d', now + lease), lm)
  return 1
end

local function four(out, a, b, c, d)
  local j = #out
  out[j + 1] = a
  out[j + 2] = b
  out[j + 3] = c
  out[j + 4] = d
end

local function take_letters(keys, n, fifth)
  -- dead's loop, and keyed.lua's kdead: up to n letters off the dead list, oldest first,
  -- each as id, class, seq, deliveries, then fifth(its fifth field) unless fifth is nil.
  local out = {}
  for i = 1, n do
    local e = redis.call('LPOP', keys[DEAD])
    if not e then
      break
    end
    local id, c, s, d, x = letter(e)
    four(out, id, c, s, d)
    if fifth then
      out[#out + 1] = fifth(x)
    end
  end
  return out
end

-- dead: args client, opno, count. Takes up to count dead-lettered tickets, oldest first, off
-- the list: flat id, class, seq, deliveries, ... (LRANGE on the dead key reads them without
-- taking); a lane queue's letters have a fifth value, the lane (-1: a letter written before
-- lanes were recorded). Replayed as push and pop are: a reply lost on the way is not a
-- letter lost. Expired leases go back first (reap), so a ticket whose last lease just ran
-- out is here.
local function dead(keys, args)
  local m = meta(keys)
  local n = int_arg(args[3], 1, MASK, 'count')
  return mutation(keys, args, 'dead', m, function()
    return take_letters(keys, n, m.lanes and function(l)
      return tonumber(l) or -1
    end)
  end)
end

-- revive (FleetQueue.requeue): args client, opno, count (1..REVIVE_MAX). Takes up to count
-- dead letters, oldest first, and pushes each again as a push would: its class, in a lane
-- queue its own lane (a letter without one: lane 0), a new sequence number, no delivery
-- counted. The first letter a push would refuse stops the call: it and the letters after
-- it stay dead letters, at the head of the list, in order. Reply: {code, k, then k times
-- (id, class, seq, lane), then, when code < 0, (id, class, lane, bound) of the refused
-- letter}; code 0 (done), -1 queue full, -2 its lane at its bound; lane -1 in a plain queue.
-- One replay record: a call sent again is answered as it was, never run twice. O(k log n).
local REVIVE_MAX = 1000

local function put_letters(keys, n, put)
  -- revive's loop, and keyed.lua's krevive: up to n letters, oldest first, each pushed again
  -- by put(id, class, its fifth field), which returns seq, lane (pushed) or code < 0, lane,
  -- bound (refused, nothing written). A pushed letter leaves the list; the first refused one
  -- stops the loop and stays at its head. The reply revive documents.
  local out, k, code = {0, 0}, 0, 0
  for i = 1, n do
    local e = redis.call('LINDEX', keys[DEAD], 0)
    if not e then
      break
    end
    local id, c, _, _, x = letter(e)
    local r, lane, bound = put(id, c, x)
    if r < 0 then
      code = r
      four(out, id, c, lane, bound)
      break
    end
    redis.call('LPOP', keys[DEAD])
    k = k + 1
    four(out, id, c, r, lane)
  end
  out[1], out[2] = code, k
  return out
end

local function revive(keys, args)
  local m = meta(keys)
  local n = int_arg(args[3], 1, REVIVE_MAX, 'count')
  return mutation(keys, args, 'revive', m, function()
    return put_letters(keys, n, function(id, c, l)
      l = m.lanes and math.min(tonumber(l) or 0, m.lanes - 1) or -1
      if full(keys, m) then
        return -1, l, 0
      end
      if l >= 0 then
        local r = redis.call('HMGET', keys[META], 'n' .. l, 'b' .. l)
        local bound = tonumber(r[2])
        if tonumber(r[1]) >= bound then
          return -2, l, bound
        end
      end
      local member, seq = stamp(keys, m, id)
      m.lo = m.lo + 1
      if m.lo == LO then
        m.lo, m.hi = 0, m.hi + 1
      end
      if l >= 0 then
        redis.call('HINCRBY', keys[META], 'n' .. l, 1)
        member = member .. string.sub(DIGITS, l + 1, l + 1)
      end
      enqueue(keys, c, member)
      return seq, l
    end)
  end)
end

-- ackpop (ack_pop): args client, opno, lease_ms, count (0..4096), n (0..4096), then n
-- tokens. Acks each token as ack would (1, or 0 when its lease no longer holds; a malformed
-- token is TQARG before anything changes), then pops up to count tickets as popn does:
-- a worker loop's "done with these, give me the next" in one call and one replay record.
-- Reply: the n ack results, then popn's reply. Replayed as popn is (its ack results as
-- recorded, its tickets while their leases hold). O((n + count) log N).
local function ackpop(keys, args)
  local m = meta(keys, 'plain')
  local lease = int_arg(args[3], 0, MASK, 'lease_ms')
  local count = int_arg(args[4], 0, BATCH_MAX, 'count')
  local n = int_arg(args[5], 0, BATCH_MAX, 'tokens')
  if #args ~= 5 + n then
    fail('TQARG', 'ack_pop: ' .. n .. ' tokens expected, got ' .. (#args - 5))
  end
  for i = 1, n do
    local colon = string.find(args[5 + i], ':', 1, true)
    if colon ~= 26 then
      fail('TQARG', 'not a lease token: ' .. args[5 + i])
    end
  end
  return mutation(keys, args, 'ackpop', m, function(now)
    local out, acked = {}, 0
    for i = 1, n do
      local lm = held(keys, args[5 + i])
      if lm then
        redis.call('ZREM', keys[LEASED], lm)
        forget(keys, string.sub(lm, 2), m)
        acked = acked + 1
        out[i] = 1
      else
        out[i] = 0
      end
    end
    if acked > 0 then
      redis.call('HINCRBY', keys[META], 'acked', acked)
    end
    local r
    if count > 0 then
      r = take_many(keys, m, now, lease, count)
    else
      r = {0, next_expiry(keys, now)}
    end
    for i = 1, #r do
      out[n + i] = r[i]
    end
    return out
  end, function(keys, r, now)
    return many_replayable(keys, r, now, n + 1)
  end)
end

register('ack', ack)
register('release', release)
register('touch', touch)
register('dead', dead)
register('revive', revive)
register('ackpop', ackpop)
