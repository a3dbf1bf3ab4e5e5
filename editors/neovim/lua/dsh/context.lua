--- Turns what the user typed (and where) into `dsh/prompt` content blocks.
---
--- `collect()` runs synchronously where the command was given (current buffer, range) and
--- returns a draft; `blocks()` turns the draft into ContentBlocks once the client (and so
--- the position encoding) is known. `#buffer` attaches the buffer as a `resource_link`,
--- a range attaches the selected lines as a `resource_link` with its `range`, and
--- `#diagnostics` inlines the buffer's diagnostics as a text block.

local api = vim.api

local M = {}

---@class dsh.ContextDraft
---@field text string The prompt without its `#` tokens.
---@field links {bufnr: integer, line1?: integer, line2?: integer}[]
---@field diagnostics? string

local SEVERITY = { 'error', 'warning', 'info', 'hint' }

--- Format the diagnostics of `bufnr` as `path:line:col: severity: message` lines.
---@param bufnr integer
---@return string
function M.diagnostics_text(bufnr)
  local name = api.nvim_buf_get_name(bufnr)
  local path = name ~= '' and require('dsh.client').relative(name) or ('[buffer ' .. bufnr .. ']')
  local items = vim.diagnostic.get(bufnr)
  table.sort(items, function(a, b)
    return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col)
  end)
  if #items == 0 then
    return 'Diagnostics for ' .. path .. ': none.'
  end
  local lines = { 'Diagnostics for ' .. path .. ':' }
  for _, d in ipairs(items) do
    local source = d.source and (' (' .. d.source .. ')') or ''
    lines[#lines + 1] = string.format(
      '%s:%d:%d: %s: %s%s',
      path,
      d.lnum + 1,
      d.col + 1,
      SEVERITY[d.severity] or 'info',
      (d.message or ''):gsub('\n', ' '),
      source
    )
  end
  return table.concat(lines, '\n')
end

--- Parse the prompt text for `#buffer` / `#diagnostics` and note the range, if any.
---@param text string
---@param opts? {bufnr?: integer, line1?: integer, line2?: integer}
---@return dsh.ContextDraft
function M.collect(text, opts)
  opts = opts or {}
  local bufnr = opts.bufnr or api.nvim_get_current_buf()
  local draft = { text = text, links = {} }
  local want_buffer, want_diagnostics = false, false
  draft.text = draft.text:gsub('#buffer%f[%W]', function()
    want_buffer = true
    return ''
  end)
  draft.text = draft.text:gsub('#diagnostics%f[%W]', function()
    want_diagnostics = true
    return ''
  end)
  draft.text = vim.trim((draft.text:gsub('  +', ' ')))
  if opts.line1 and opts.line2 then
    draft.links[#draft.links + 1] = { bufnr = bufnr, line1 = opts.line1, line2 = opts.line2 }
  end
  if want_buffer then
    draft.links[#draft.links + 1] = { bufnr = bufnr }
  end
  if want_diagnostics then
    draft.diagnostics = M.diagnostics_text(bufnr)
  end
  return draft
end

--- The ContentBlocks of a draft; `encoding` is the client's position encoding.
---@param draft dsh.ContextDraft
---@param encoding? string "utf-8"|"utf-16"|"utf-32"
---@return table[] blocks, integer[] bufnrs buffers the server must have open
function M.blocks(draft, encoding)
  local blocks, bufs = {}, {}
  if draft.text ~= '' then
    blocks[#blocks + 1] = { type = 'text', text = draft.text }
  end
  if draft.diagnostics then
    blocks[#blocks + 1] = { type = 'text', text = draft.diagnostics }
  end
  for _, link in ipairs(draft.links) do
    if api.nvim_buf_is_valid(link.bufnr) and api.nvim_buf_get_name(link.bufnr) ~= '' then
      local block = { type = 'resource_link', uri = vim.uri_from_bufnr(link.bufnr) }
      if link.line1 then
        local last = api.nvim_buf_get_lines(link.bufnr, link.line2 - 1, link.line2, false)[1] or ''
        block.range = {
          start = { line = link.line1 - 1, character = 0 },
          ['end'] = {
            line = link.line2 - 1,
            character = vim.str_utfindex(last, encoding or 'utf-16'),
          },
        }
      end
      blocks[#blocks + 1] = block
      bufs[#bufs + 1] = link.bufnr
    end
  end
  return blocks, bufs
end

return M
