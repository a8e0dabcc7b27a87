-- age.lua: how long the oldest queued ticket has waited, at no cost to push or pop.
--
-- A ticket carries no push time (the queue is clock-free for order: its place is its push
-- counter). So that the counter can be read as a time, the `age` function keeps a sparse,
-- bounded record of MARKS in the meta field `am`: "<hi>:<lo>:<ms> ..." oldest first, each
-- the push counter (hi, lo: the counter the next push takes) at the server's TIME in ms.
-- Only `age` writes marks, and at most one per second of server time (a call less than
-- 1000 ms after the last mark adds none): push, pop and every other function are unchanged.
--
-- What a mark proves: a ticket whose counter is below a mark's was pushed at or before the
-- mark's time; one whose counter is at or above it was pushed at or after it. For the
-- oldest queued ticket (the least counter among the heads of the ready lists), with `now`
-- the server's TIME:
--   min_ms = now - time of the first mark above its counter   (0 if there is none yet)
--   max_ms = now - time of the last mark at or below it       (-1 if there is none: the
--                                                               ticket is older than every mark)
-- and its true age lies in [min_ms, max_ms], whoever pushed it and whenever. The
-- resolution, max_ms - min_ms, is the gap between those two marks: the time between the
-- `age` calls around its push, never under 1 s (one mark a second at most); with the
-- dashboard sampling every 2 s, 2 s. Bounded: at most MARKS (64) marks are kept. Past
-- that, first the oldest mark goes if the next one is still at or below the oldest queued
-- ticket's counter (no queued ticket needs it), else the inner mark whose removal leaves
-- the smallest gap, so the gaps stay even (a backlog that waited through more than 64
-- marks is then known to within about 1/32 of the time the marks span). A leased ticket
-- that comes back older than every mark kept has max_ms -1 (older than the first mark).
-- Cost: O(MARKS + heads) per `age` call: the heads of the ready lists (4 for a plain
-- queue, up to 4 per lane for a lane queue, up to 4 * 256 for a keyed lane queue: where a
-- class has more lanes than 256, the lanes made first, and the answer is then a lower
-- bound, max_ms -1), read as info reads them.
local MARKS = 64

local function before(ah, al, bh, bl)
  -- (ah, al) < (bh, bl): counters compared as pairs (each part exact in a double).
  return ah < bh or (ah == bh and al < bl)
end

-- age: args none. Returns {min_ms, max_ms} of the oldest queued ticket, as above, or
-- {-1, -1} when nothing is queued. Expired leases are given back first (as info).
local function age(keys, args)
  local m, now, hs, partial
  if #keys == NKEYS + 2 then
    -- a keyed lane queue's client sends its twelve keys (keyed.lua): its meta, its reap,
    -- and the heads of at most 256 (class, lane) FIFOs per class (partial: more exist, so
    -- the oldest head read gives a lower bound only, max_ms -1: not known)
    m, now, hs, partial = kage_heads(keys)
  else
    m = meta(keys)
    now = now_ms()
    reap(keys, m, now)
    hs = heads(keys, 0, m.lanes and 4 * BAND - 1 or 3)
  end
  local ch, cl
  for i = 1, #hs do
    local h, l = counter(hs[i][1])
    if not ch or before(h, l, ch, cl) then
      ch, cl = h, l
    end
  end
  local marks = {}
  for h, l, t in string.gmatch(redis.call('HGET', keys[META], 'am') or '', '(%d+):(%d+):(%d+)') do
    marks[#marks + 1] = {tonumber(h), tonumber(l), tonumber(t)}
  end
  local changed = false
  if #marks == 0 or now - marks[#marks][3] >= 1000 then
    marks[#marks + 1] = {m.hi, m.lo, now}
    changed = true
  end
  while #marks > MARKS do
    if ch and not before(ch, cl, marks[2][1], marks[2][2]) then
      table.remove(marks, 1)  -- the next mark is at or below the oldest ticket: not needed
    else
      local best, gap = 2, nil
      for i = 2, #marks - 1 do
        local g = marks[i + 1][3] - marks[i - 1][3]
        if not gap or g < gap then
          best, gap = i, g
        end
      end
      table.remove(marks, best)
    end
  end
  if changed then
    local s = {}
    for i = 1, #marks do
      s[i] = string.format('%d:%d:%d', marks[i][1], marks[i][2], marks[i][3])
    end
    redis.call('HSET', keys[META], 'am', table.concat(s, ' '))
  end
  if not ch then
    return {-1, -1}
  end
  local lo_ms, hi_ms = 0, -1
  for i = 1, #marks do
    if before(ch, cl, marks[i][1], marks[i][2]) then
      lo_ms = now - marks[i][3]
      break
    end
    hi_ms = now - marks[i][3]
  end
  if partial then
    hi_ms = -1
  end
  return {lo_ms, hi_ms}
end

register('age', age)
