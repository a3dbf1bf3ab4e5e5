--- Waiting without blocking: a timer checks a condition until it holds or time runs out.
---
--- Used where the plugin must wait for another part of Neovim (a client to initialize, a
--- document's servers to attach) from a callback, never with `vim.wait`, so the user's
--- typing is never held up.

local M = {}

--- Call `done(true)` once `cond()` holds (checked now, then every `every` ms), or
--- `done(false)` once `ms` have passed without it. Raises nothing.
---@param ms integer
---@param cond fun(): boolean
---@param done fun(ok: boolean)
---@param every? integer the interval in ms (default 20)
function M.poll(ms, cond, done, every)
  if cond() then
    return done(true)
  end
  every = every or 20
  local timer = assert(vim.uv.new_timer())
  local waited = 0
  timer:start(
    every,
    every,
    vim.schedule_wrap(function()
      if timer:is_closing() then
        return
      end
      waited = waited + every
      local ok = cond()
      if ok or waited >= ms then
        timer:close()
        done(ok)
      end
    end)
  )
end

return M
