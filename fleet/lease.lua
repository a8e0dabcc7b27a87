-- lease.lua: what happens to a leased ticket after pop(lease_ms > 0): ack (done), release
-- (not done: back now), touch (still working: extend the lease), and the dead-letter list.
-- Loaded after core.lua and queue.lua.
--
-- A lease token is "<class><ready member>:<deliveries>" as pop returned it (the ready
-- member is 24 bytes, 25 in a lane queue). The delivery count fences it: once a lease
-- expired and the ticket was leased again, the first holder's token no longer matches, so
-- its late ack or release changes nothing (0).

local function held(keys, token)
  -- The leased member of a token that still holds its lease, or nil.
  local colon = string.find(token, ':', 1, true)
  if colon ~= 26 and colon ~= 27 then
    fail('TQARG', 'not a lease token: ' .. token)
  end
  local lm = string.sub(token, 1, colon - 1)
  if not redis.call('ZSCORE', keys[LEASED], lm) then
    return nil
  end
  if redis.call('HGET', keys[DELIV], string.sub(lm, 2)) ~= string.sub(token, colon + 1) then
    return nil
  end
  return lm
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
    forget(keys, string.sub(lm, 2))
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

-- dead: args client, opno, count. Takes up to count dead-lettered tickets, oldest first, off
-- the list: flat id, class, seq, deliveries, ... (LRANGE on the dead key reads them without
-- taking). Replayed as push and pop are: a reply lost on the way is not a letter lost.
-- Expired leases go back first (reap), so a ticket whose last lease just ran out is here.
local function dead(keys, args)
  local m = meta(keys)
  local n = int_arg(args[3], 1, MASK, 'count')
  return mutation(keys, args, 'dead', m, function()
    local out = {}
    for i = 1, n do
      local e = redis.call('LPOP', keys[DEAD])
      if not e then
        break
      end
      for v in string.gmatch(e, '%d+') do
        out[#out + 1] = tonumber(v)
      end
    end
    return out
  end)
end

register('ack', ack)
register('release', release)
register('touch', touch)
register('dead', dead)
