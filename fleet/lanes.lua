-- lanes.lua: fair lanes on the server, ticketq.lanes.LaneQueue's contract: lopen, lpush,
-- lpop (optionally leased), lpeek, lanes (per-lane counts), ltickets, ltable. Loaded after
-- core.lua, queue.lua and lease.lua; remove, info, clear, destroy and the lease calls
-- (ack, release, touch, dead) are the plain queue's, which serve both kinds.
--
-- The rule is docs/lanes.md's "specification the fleet tier follows", step for step:
-- within the highest class that has a ticket, read the lane table as a ring from that
-- class's cursor to the first entry whose lane has a ticket of the class; pop that lane's
-- oldest ticket; move the cursor just past that entry. Nothing else moves a cursor.
--
-- Layout (core.lua): a (class, lane) list is one score of the ready set, (3 - class) * 32
-- + lane, FIFO by member; the member ends in the lane's base-32 digit, so a ticket that
-- comes back from a lease goes back into its own lane at its own place (core's enqueue),
-- and core's forget counts it out of its lane. The settings, the table (a string of W
-- lane digits), the cursors c0..c3 and the lane counts n<l> are fields of meta: no key
-- is added, so a lane queue has a plain queue's ten keys under the same hash tag.
--
-- Leases and the rotation: the cursor moves at the pop, leased or not (as the digest and
-- the aging count do). A lease that ends without an ack puts the ticket back into its
-- lane's list of its class at its sequence place and moves no cursor: the lane gets no
-- extra turn; the ticket, now its lane's oldest, takes the lane's next turn. While leased
-- it counts against its lane's bound, as against the queue's capacity.

local LANES, SLOTS = 30, 32767  -- ticketq.lanes' bounds: lanes, and any weight or their sum

local function digit(l)
  return string.sub(DIGITS, l + 1, l + 1)
end

local function ints(s, lo, hi, what)
  -- A comma-separated list of integers ("3,1,2"), each checked by int_arg.
  local out = {}
  for v in string.gmatch(s .. ',', '([^,]*),') do
    out[#out + 1] = int_arg(v, lo, hi, what)
  end
  return out
end

local function count(s)
  -- How many entries the comma-separated list s holds (checked before they are parsed).
  if s == nil or s == '' then
    return 0
  end
  local _, commas = string.gsub(s, ',', ',')
  return commas + 1
end

local function weights(s)
  -- Lane weights as ticketq.lanes._weights checks them: 1..30 lanes, each 1..32767, the sum too.
  local n = count(s)
  if n < 1 or n > LANES then
    fail('TQARG', 'lanes must be 1..' .. LANES .. ', not ' .. n)
  end
  local w = ints(s, 1, SLOTS, 'weight')
  local total = 0
  for l = 1, n do
    total = total + w[l]
  end
  if total > SLOTS then
    fail('TQARG', 'total weight must be 1..' .. SLOTS .. ', not ' .. total)
  end
  return w, total
end

local function lane_table(w, total)
  -- The lane table, a string of W lane digits: docs/lanes.md step 2, as ticketq.lanes.table
  -- computes it (tests compare the two for many weight vectors). Lane l's j-th turn is
  -- released at floor(j*W/w) and due by ceil((j+1)*W/w); each slot goes to the released
  -- turn due first, the lower lane on a tie. Every product is below W*W < 2**30 and every
  -- quotient's floor is exact in doubles. O(W * lanes): ~0.15 s for 30 lanes and W = 32760,
  -- once, at creation.
  local n = #w
  local done, out = {}, {}
  for l = 1, n do
    done[l] = 0
  end
  for p = 0, total - 1 do
    local b, bd = nil, 0
    for l = 1, n do
      local wl, j = w[l], done[l]
      if j * total < (p + 1) * wl then  -- released: floor(j*W/w) <= p (so j < w)
        local due = math.floor(((j + 1) * total + wl - 1) / wl)
        if b == nil or due < bd then
          b, bd = l, due
        end
      end
    end
    out[p + 1] = digit(b - 1)
    done[b] = done[b] + 1
  end
  return table.concat(out)
end

local function config(keys, lanes)
  -- A lane queue's weights and bounds (as "3,1,2") and its table, from meta.
  local f = {'tb'}
  for l = 0, lanes - 1 do
    f[#f + 1] = 'w' .. l
    f[#f + 1] = 'b' .. l
  end
  local r = redis.call('HMGET', keys[META], unpack(f))
  local w, b = {}, {}
  for l = 0, lanes - 1 do
    w[l + 1] = r[2 + 2 * l]
    b[l + 1] = r[3 + 2 * l]
  end
  return table.concat(w, ','), table.concat(b, ','), r[1]
end

-- lopen: args cap (0: the queue must exist), first_seq, aging, max_deliveries, weights
-- ("3,1,2"), lane bounds ("8,4,6"; both "" with cap 0). Creates the lane queue, its table
-- computed here, or checks that the settings given match it. Returns {cap, first_seq,
-- aging, max_deliveries, client number, weights, bounds, table}.
local function lopen(keys, args)
  local cap = int_arg(args[1], 0, 0x1000000, 'capacity')
  local extra, check = nil, nil
  if cap > 0 then
    local w, total = weights(args[5])
    if count(args[6]) ~= #w then
      fail('TQARG', 'lane capacity: one per lane (' .. #w .. '), not ' .. count(args[6]))
    end
    local b = ints(args[6], 1, cap, 'lane capacity')
    extra = {'lanes', #w, 'tb', lane_table(w, total), 'c0', 0, 'c1', 0, 'c2', 0, 'c3', 0}
    for l = 0, #w - 1 do
      for _, f in ipairs({'w' .. l, w[l + 1], 'b' .. l, b[l + 1], 'n' .. l, 0}) do
        extra[#extra + 1] = f
      end
    end
    check = function(m)
      local hw, hb = config(keys, m.lanes)
      local ww, wb = table.concat(w, ','), table.concat(b, ',')
      if hw ~= ww or hb ~= wb then
        fail('TQCONFIG', 'queue ' .. keys[META] .. ' exists with weights ' .. hw ..
          ' and lane capacity ' .. hb .. '; asked for ' .. ww .. ' and ' .. wb ..
          ' (open it without a capacity to take its settings)')
      end
    end
  end
  local r = open_queue(keys, args, 'lanes', extra, check)
  local w, b, tb = config(keys, tonumber(redis.call('HGET', keys[META], 'lanes')))
  r[6], r[7], r[8] = w, b, tb
  return r
end

local function choose(keys)
  -- The next ticket by the rule, as queue.lua's choosers give it: its member, class, lane,
  -- and the class's cursor moved just past the entry it was taken at (the field its pop
  -- sets); nil when nothing is queued. One call finds the class; when the cursor's lane has a
  -- ticket of it (always, while every lane is backlogged) one more finds the ticket;
  -- otherwise the heads of the class's lanes (one call each) and a scan of the table for
  -- the first entry after the cursor that names one of those lanes (string.find, in C).
  local r = redis.call('ZRANGE', keys[READY], 0, 0, 'WITHSCORES')
  if #r == 0 then
    return nil
  end
  local band = math.floor(tonumber(r[2]) / BAND) * BAND  -- the class's lowest score
  local cls = 3 - band / BAND
  local t = redis.call('HMGET', keys[META], 'tb', 'c' .. cls)
  local tb, p = t[1], tonumber(t[2])
  local l = tonumber(string.sub(tb, p + 1, p + 1), 32)
  local h = redis.call('ZRANGEBYSCORE', keys[READY], band + l, band + l, 'LIMIT', 0, 1)[1]
  if not h then
    local at, set = {}, {}
    for _, e in ipairs(heads(keys, band, band + BAND - 1)) do
      at[e[2] - band] = e[1]
      set[#set + 1] = digit(e[2] - band)
    end
    local pat = '[' .. table.concat(set) .. ']'
    p = (string.find(tb, pat, p + 2) or string.find(tb, pat)) - 1
    l = tonumber(string.sub(tb, p + 1, p + 1), 32)
    h = at[l]
  end
  return h, cls, l, {'c' .. cls, (p + 1) % #tb}
end

-- lpush: args client, opno, job id, class, lane. Returns the sequence number; -1 when the
-- queue is full (queued plus leased tickets reach the capacity), -2 when the lane is
-- (its queued plus leased tickets reach its bound); the queue's bound is checked first. A
-- refused push stores nothing and spends no sequence number. No cursor moves.
local function lpush(keys, args)
  local m = meta(keys, 'lanes')
  local id = int_arg(args[3], 0, MASK, 'job id')
  local cls = int_arg(args[4], 0, 3, 'priority')
  local l = int_arg(args[5], 0, m.lanes - 1, 'lane')
  return mutation(keys, args, 'push', m, function()
    if full(keys, m) then
      return -1
    end
    local r = redis.call('HMGET', keys[META], 'n' .. l, 'b' .. l)
    if tonumber(r[1]) >= tonumber(r[2]) then
      return -2
    end
    local member, seq = stamp(keys, m, id)
    redis.call('HINCRBY', keys[META], 'n' .. l, 1)
    enqueue(keys, cls, member .. digit(l))
    return seq
  end)
end

-- lanes: {cursor of LOW, NORMAL, HIGH, CRITICAL, then per lane: tickets queued, tickets
-- held (queued or leased: what its bound counts)}.
local function lanes(keys, args)
  local m = meta(keys, 'lanes')
  reap(keys, m, now_ms())
  local out = {}
  local f = {'c0', 'c1', 'c2', 'c3'}
  for l = 0, m.lanes - 1 do
    f[#f + 1] = 'n' .. l
  end
  local r = redis.call('HMGET', keys[META], unpack(f))
  for c = 1, 4 do
    out[c] = tonumber(r[c])
  end
  for l = 0, m.lanes - 1 do
    local q = 0
    for s = l, 3 * BAND + l, BAND do
      q = q + redis.call('ZCOUNT', keys[READY], s, s)
    end
    out[#out + 1] = q
    out[#out + 1] = tonumber(r[5 + l])
  end
  return out
end

-- ltickets: every queued ticket in pop order (if nothing else happened and aging were
-- off), flat: id, class, seq, promoted, lane, ... Each class is drained from its cursor:
-- each of its lanes takes its next table entry in turn, the nearest first. O(n * lanes +
-- W): for audits and tests (ticketq.audit.tickets of a LaneQueue), not for a hot path.
local function ltickets(keys, args)
  local m = meta(keys, 'lanes')
  reap(keys, m, now_ms())
  local t = redis.call('HMGET', keys[META], 'tb', 'c0', 'c1', 'c2', 'c3')
  local tb = t[1]
  local size = #tb
  local pos = {}  -- lane -> its table entries, ascending
  for p = 0, size - 1 do
    local l = tonumber(string.sub(tb, p + 1, p + 1), 32)
    pos[l] = pos[l] or {}
    pos[l][#pos[l] + 1] = p
  end
  local out = {}
  for cls = 3, 0, -1 do
    local band = (3 - cls) * BAND
    local r = redis.call('ZRANGEBYSCORE', keys[READY], band, band + BAND - 1, 'WITHSCORES')
    local lists = {}  -- lane -> {list of its members, next to take, entry index, round}
    for i = 1, #r, 2 do
      local l = tonumber(r[i + 1]) - band
      if not lists[l] then
        -- the lane's first entry at or after the cursor (else the first, a round later)
        local cur, ps, k, round = tonumber(t[2 + cls]), pos[l], 1, 0
        while k <= #ps and ps[k] < cur do
          k = k + 1
        end
        if k > #ps then
          k, round = 1, size
        end
        lists[l] = {{}, 1, k, round}
      end
      local x = lists[l][1]
      x[#x + 1] = r[i]
    end
    while true do
      local best, at = nil, 0
      for l, x in pairs(lists) do
        local abs = x[4] + pos[l][x[3]]
        if x[2] <= #x[1] and (best == nil or abs < at) then
          best, at = l, abs
        end
      end
      if best == nil then
        break
      end
      local x = lists[best]
      local member = x[1][x[2]]
      x[2] = x[2] + 1
      x[3] = x[3] + 1
      if x[3] > #pos[best] then
        x[3], x[4] = 1, x[4] + size
      end
      out[#out + 1] = job_id(member)
      out[#out + 1] = cls
      out[#out + 1] = seq_of(m, member)
      out[#out + 1] = redis.call('SISMEMBER', keys[PROMO], member)
      out[#out + 1] = best
    end
  end
  return out
end

-- ltable: args weights ("3,1,2"). The lane table of those weights, as lopen computes and
-- stores it (a string of W lane digits, base 32): for operators and for the tests that
-- compare it with ticketq.lanes.table. Takes no keys; changes nothing.
local function ltable(keys, args)
  return lane_table(weights(args[1]))
end

register('lopen', lopen)
register('lpush', lpush)
-- lpop: args client, opno, lease_ms, as pop (queue.lua), by the rotation. Returns pop's
-- reply and the lane: {id, class, seq, promoted, deliveries, token, pop number, lane}, or
-- {-1, ms until the next lease expires (-1: none)}. The digest folds the lane in (core's
-- digest); the class's cursor moves just past the entry the ticket was taken at.
-- lpeek: the job id lpop would return, or -1 when nothing is queued.
register('lpop', popper('lanes', choose))
register('lpeek', peeker('lanes', choose))
register('lanes', lanes)
register('ltickets', ltickets)
register('ltable', ltable)
